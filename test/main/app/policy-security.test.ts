// The shell's security settings, checked where they are decided: web preferences, what the
// renderer may request, start-up switches, the CSP, and what the preload exposes.
import { describe, expect, it } from 'vitest';
import { forbiddenSwitch, isAllowedRequest, navigationDecision, secureWebPreferences } from '../../../main/app/policy';
import { APP_SCHEME_PRIVILEGES } from '../../../main/app/protocol';
import { CSP } from '../../../main/host/static';
import { buildBridge, type IpcRendererLike } from '../../../main/preload/bridge';
import { EVENT_CHANNEL, channelOf } from '../../../shared/api/channels';
import { METHOD_NAMES } from '../../../shared/api/contract';

describe('web preferences', () => {
  it('isolate, sandbox and keep Node out of every renderer', () => {
    const prefs = secureWebPreferences('/app/out/preload/index.cjs', false);
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      devTools: false,
    });
    expect(prefs.preload).toBe('/app/out/preload/index.cjs');
    expect(secureWebPreferences('/p', true).devTools).toBe(true);
  });

  it('give the app scheme a secure origin and nothing that bypasses CSP', () => {
    expect(APP_SCHEME_PRIVILEGES).toEqual({ standard: true, secure: true, supportFetchAPI: true });
    expect(APP_SCHEME_PRIVILEGES).not.toHaveProperty('bypassCSP');
  });
});

describe('requests and navigation', () => {
  it('lets the renderer load only app:// (and DevTools in development)', () => {
    expect(isAllowedRequest('app://lbdesk/assets/index.js', false)).toBe(true);
    expect(isAllowedRequest('data:image/png;base64,AAAA', false)).toBe(true);
    expect(isAllowedRequest('blob:app://lbdesk/0b7c-4f1e', false)).toBe(true);
    expect(isAllowedRequest('blob:https://evil.example/0b7c', false)).toBe(false);
    for (const url of ['https://cdn.example/x.js', 'http://127.0.0.1:8080/', 'ws://127.0.0.1:1/', 'file:///etc/passwd', 'app://evil/x.js', 'devtools://devtools/bundled/x.html']) {
      expect(isAllowedRequest(url, false), url).toBe(false);
    }
    expect(isAllowedRequest('devtools://devtools/bundled/x.html', true)).toBe(true);
  });

  it('keeps navigation on app://lbdesk', () => {
    expect(navigationDecision('app://lbdesk/servers')).toBe('allow');
    expect(navigationDecision('app://evil/')).toBe('deny');
    expect(navigationDecision('file:///etc/passwd')).toBe('deny');
    expect(navigationDecision('https://example.com/')).toBe('external');
  });
});

describe('start-up switches', () => {
  it('refuses debugging switches in packaged builds', () => {
    expect(forbiddenSwitch(['/opt/lbdesk/lbdesk-desktop', '--remote-debugging-port=9222'])).toBe('--remote-debugging-port');
    expect(forbiddenSwitch(['/opt/lbdesk/lbdesk-desktop', '--inspect=0.0.0.0:9229'])).toBe('--inspect');
    expect(forbiddenSwitch(['x', '--INSPECT-BRK'])).toBe('--inspect-brk');
    expect(forbiddenSwitch(['x', '--js-flags=--allow-natives-syntax'])).toBe('--js-flags');
    expect(forbiddenSwitch(['/opt/lbdesk/lbdesk-desktop', '/home/me/site.yaml', '--no-sandbox-not-a-debug-switch'])).toBeUndefined();
  });
});

describe('content security policy', () => {
  it('allows no inline script, eval, plugins, framing or foreign hosts', () => {
    const directives = new Map(CSP.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k!, v]));
    expect(directives.get('default-src')).toEqual(["'self'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    expect(directives.get('object-src')).toEqual(["'none'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(directives.get('base-uri')).toEqual(["'none'"]);
    expect(CSP).not.toMatch(/unsafe-inline|unsafe-eval|\*|https?:/);
  });
});

describe('the preload bridge', () => {
  class RecordingIpc implements IpcRendererLike {
    invoked: unknown[][] = [];
    listeners = new Map<string, ((e: unknown, ...a: unknown[]) => void)[]>();
    async invoke(channel: string, ...args: unknown[]) {
      this.invoked.push([channel, ...args]);
      return { ok: true, result: null };
    }
    on(channel: string, l: (e: unknown, ...a: unknown[]) => void) {
      this.listeners.set(channel, [...(this.listeners.get(channel) ?? []), l]);
    }
    removeListener(channel: string, l: (e: unknown, ...a: unknown[]) => void) {
      this.listeners.set(channel, (this.listeners.get(channel) ?? []).filter((x) => x !== l));
    }
    emit(channel: string, payload: unknown) {
      for (const l of this.listeners.get(channel) ?? []) l({ sender: 'ipc internals' }, payload);
    }
  }

  it('exposes exactly one function per contract method, frozen, and never ipcRenderer', async () => {
    const ipc = new RecordingIpc();
    const bridge = buildBridge(ipc);
    expect(Object.keys(bridge).sort()).toEqual(['methods', 'onEvent']);
    expect(Object.keys(bridge.methods).sort()).toEqual([...METHOD_NAMES].sort());
    expect(Object.isFrozen(bridge.methods)).toBe(true);
    await bridge.methods['app.info']!({});
    expect(ipc.invoked).toEqual([[channelOf('app.info'), {}]]);
  });

  it('passes on known events only, without the IPC event object', () => {
    const ipc = new RecordingIpc();
    const seen: unknown[] = [];
    const off = buildBridge(ipc).onEvent((e) => seen.push(e));
    ipc.emit(EVENT_CHANNEL, { event: 'menu.command', payload: { command: 'open', path: '/tmp/a.yaml' } });
    ipc.emit(EVENT_CHANNEL, { event: 'evil.event', payload: {} });
    ipc.emit(EVENT_CHANNEL, null);
    off();
    ipc.emit(EVENT_CHANNEL, { event: 'menu.command', payload: { command: 'save' } });
    expect(seen).toEqual([{ event: 'menu.command', payload: { command: 'open', path: '/tmp/a.yaml' } }]);
  });
});
