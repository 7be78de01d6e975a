// `ws` names only a WebSocket: ESLint refuses it (and wsFoo, fooWs) for anything else, outside the socket files.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli';

const eslint = new ESLint({ cwd: ROOT });
async function nameHits(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${file}` });
  return result!.messages.filter((m) => /no-restricted-syntax$/.test(m.ruleId ?? '')).map((m) => `${m.line}:${m.column}`);
}

const LOAD = "import { loadWorkspace } from '../main/services/workspace';\nexport async function f(p: string) {\n  const ws = await loadWorkspace(p);\n  return ws;\n}\n";
const STORE_VUE = "<script setup lang=\"ts\">\nimport { useWorkspace } from './stores/workspace';\nconst ws = useWorkspace();\n</script>\n<template><p>{{ ws.name }}</p></template>\n";
const SOCKET = "import { WebSocket } from 'ws';\nexport function f(url: string) {\n  const ws = new WebSocket(url);\n  return ws;\n}\n";

describe('ws names only a WebSocket', () => {
  it('refuses a workspace called ws, at each place', async () => {
    expect(await nameHits('main/cli/x.ts', LOAD)).toEqual(['3:9', '4:10']);
  });
  it.each([
    ['test/main/services/x.test.ts', "export const wsFile = '/tmp/site.yaml';\n"],
    ['shared/model/x.ts', "export interface WsIndex { n: number }\n"],
    ['main/services/x/y.ts', "export const pairWs = { name: 'p' };\n"],
    ['main/services/x/y.ts', "export const plan = { ws: 1 };\n"],
  ])('refuses %s: %j', async (file, code) => {
    expect(await nameHits(file, code)).not.toEqual([]);
  });
  it('refuses the workspace store called ws in a component, script and template', async () => {
    expect(await nameHits('renderer/src/X.vue', STORE_VUE)).toEqual(['3:7', '5:17']);
  });
  it('allows a WebSocket called ws in the socket files, and the ws package and scheme everywhere', async () => {
    expect(await nameHits('main/host/x.ts', SOCKET)).toEqual([]);
    expect(await nameHits('main/services/x/y.ts', "import { WebSocketServer } from 'ws';\nexport const url = 'ws://127.0.0.1/api/ws';\nexport const S = WebSocketServer;\n")).toEqual([]);
  });
});
