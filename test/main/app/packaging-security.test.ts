// electron-builder.yml, checked without the Electron download: our own assertions on fuses,
// targets, files and icons, then electron-builder's own loader and schema validation
// (app-builder-lib's getConfig + validateConfiguration, which work offline).
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from '../../helpers/app-ipc';

const require = createRequire(import.meta.url);
type Config = Record<string, unknown> & {
  electronFuses: Record<string, boolean>;
  files: string[];
  extraResources: { from: string; to: string }[];
  fileAssociations: { ext: string[]; name: string; rank?: string; mimeType?: string }[];
  linux: { target: string[]; category: string; icon: string; executableName?: string };
  win: { target: string[]; icon: string };
  mac: { target: string[]; icon: string };
  nsis: { perMachine: boolean };
  directories: { output: string };
};

const config = parse(readFileSync(join(ROOT, 'electron-builder.yml'), 'utf8')) as Config;

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const buf = readFileSync(file);
  expect(buf.subarray(0, 8).toString('hex'), `${file} is a PNG`).toBe('89504e470d0a1a0a');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe('electron-builder.yml', () => {
  it('names the app', () => {
    expect(config.appId).toBe('io.lbdesk.app');
    expect(config.productName).toBe('lbdesk');
    expect(config.directories.output).toBe('release');
  });

  it('sets every security fuse', () => {
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      grantFileProtocolExtraPrivileges: false,
    });
    expect(config.asar).toBe(true);
  });

  it('builds AppImage + deb, nsis and dmg', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.linux.category).toBe('Network');
    expect(config.win.target).toEqual(['nsis']);
    expect(config.mac.target).toEqual(['dmg']);
  });

  it('packs the built app, not sources, source maps or the CLI bundle', () => {
    expect(config.files).toEqual(expect.arrayContaining(['out/main/**', 'out/preload/**', 'out/renderer/**', 'out/cli/engine-worker.cjs', 'out/cli/probe-worker.cjs', 'out/cli/validate-worker.cjs', 'package.json', '!**/*.map']));
    expect(config.files).not.toContain('out/cli/lbdesk.cjs');
    expect(config.files.some((f) => /^(main|shared|renderer|test|scripts)\//.test(f))).toBe(false);
    expect(config.files).not.toContain('out/**');
    expect(config.extraResources).toEqual([{ from: 'assets/demo', to: 'assets/demo' }, { from: 'assets/templates', to: 'assets/templates' }]);
    expect(existsSync(join(ROOT, 'assets/demo/lab-site-a.yaml'))).toBe(true);
    expect(existsSync(join(ROOT, 'assets/templates/adx-example.liquid'))).toBe(true);
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { main: string };
    expect(pkg.main).toBe('out/main/index.js');
  });

  it('offers itself for workspace files without taking .yaml over', () => {
    const [assoc] = config.fileAssociations;
    expect(assoc).toMatchObject({ ext: ['yaml', 'yml'], name: 'lbdesk workspace', rank: 'Alternate', mimeType: 'application/yaml' });
    expect(config.nsis.perMachine).toBe(false);
    expect(config.linux.executableName).toBe('lbdesk-desktop');
  });

  it('refers to icon files that exist at the sizes each platform needs', () => {
    expect(pngSize(join(ROOT, config.win.icon))).toEqual({ width: 512, height: 512 });
    expect(pngSize(join(ROOT, config.mac.icon))).toEqual({ width: 512, height: 512 });
    expect(config.files).toContain('assets/icon.png');
    for (const size of [16, 24, 32, 48, 64, 128, 256, 512]) {
      expect(pngSize(join(ROOT, config.linux.icon, `${size}x${size}.png`))).toEqual({ width: size, height: size });
    }
    expect(readFileSync(join(ROOT, 'assets/icon.svg'), 'utf8')).toMatch(/^<svg[^>]+viewBox="0 0 512 512"/);
  });

  it("passes electron-builder's own loader and schema validation", async () => {
    const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config') as {
      getConfig(projectDir: string, configPath: string | null, fromOptions: unknown): Promise<Record<string, unknown>>;
      validateConfiguration(config: unknown, debug: { isEnabled: boolean; add(k: string, v: unknown): void }): Promise<void>;
    };
    const debug = { isEnabled: false, add: () => undefined };
    const loaded = await getConfig(ROOT, join(ROOT, 'electron-builder.yml'), null);
    await expect(validateConfiguration(loaded, debug)).resolves.toBeUndefined();
    expect(loaded.electronFuses).toEqual(config.electronFuses);
    // The validation is real: a misspelt or misplaced option is refused.
    await expect(validateConfiguration({ ...loaded, electronFuses: { ...config.electronFuses, runAsNod: false } }, debug)).rejects.toThrow(/electronFuses/);
    await expect(validateConfiguration({ ...loaded, linux: { ...(loaded.linux as object), categroy: 'Network' } }, debug)).rejects.toThrow(/Invalid configuration/);
  });
});
