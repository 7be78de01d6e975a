// Loading and saving workspace files on a real file system.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadWorkspaceFile, readWorkspaceText, saveWorkspaceText, validateFile, workspaceStore, WorkspaceFileError } from '../../../../main/services/workspace';
import { setField, documentToText } from '../../../../shared/model/document';

const EXAMPLE = readFileSync(resolve(__dirname, '../../../../assets/demo/lab-site-a.yaml'), 'utf8');
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'lbdesk-store-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const leftovers = () => readdirSync(dir).filter((n) => n.endsWith('.tmp'));

describe('saveWorkspaceText', () => {
  it('writes a new file without a backup, then keeps the previous version as .bak', async () => {
    const file = join(dir, 'site.yaml');
    const first = await saveWorkspaceText(file, 'lbdesk: 1\nname: one\n');
    expect(first).toMatchObject({ path: file, backupPath: undefined, normalised: [] });
    expect(existsSync(`${file}.bak`)).toBe(false);
    const second = await saveWorkspaceText(file, 'lbdesk: 1\nname: two\n');
    expect(second.backupPath).toBe(`${file}.bak`);
    await saveWorkspaceText(file, 'lbdesk: 1\nname: three\n');
    expect(readFileSync(file, 'utf8')).toBe('lbdesk: 1\nname: three\n');
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe('lbdesk: 1\nname: two\n');
    expect(leftovers()).toEqual([]);
  });

  it('refuses text that is not YAML and leaves the file as it was', async () => {
    const file = join(dir, 'site.yaml');
    writeFileSync(file, EXAMPLE);
    const err = await saveWorkspaceText(file, 'lbdesk: 1\nname: [unclosed\n').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceFileError);
    expect((err as WorkspaceFileError).code).toBe('not-yaml');
    expect((err as Error).message).toMatch(new RegExp(`not saving ${file}: not valid YAML at line \\d+, column \\d+`));
    expect(readFileSync(file, 'utf8')).toBe(EXAMPLE);
    expect(existsSync(`${file}.bak`)).toBe(false);
    expect(leftovers()).toEqual([]);
  });

  it('saves work in progress that is YAML but not yet a valid workspace', async () => {
    const file = join(dir, 'wip.yaml');
    await saveWorkspaceText(file, 'lbdesk: 1\nservers:\n  - name: half\n');
    expect(readFileSync(file, 'utf8')).toBe('lbdesk: 1\nservers:\n  - name: half\n');
  });

  it('normalises Fm + Fc to 100, keeping every comment', async () => {
    const file = join(dir, 'site.yaml');
    const text = EXAMPLE.replace('mpsFactor: 50 ', 'mpsFactor: 30 ');
    const saved = await saveWorkspaceText(file, text);
    expect(saved.normalised).toEqual(['targetSets[0].leastLoad: 30+50 -> 38+62']);
    const expected = text.replace('mpsFactor: 30 ', 'mpsFactor: 38 ').replace('connectionFactor: 50 ', 'connectionFactor: 62 ');
    expect(saved.text).toBe(expected);
    expect(readFileSync(file, 'utf8')).toBe(expected);
    await saveWorkspaceText(file, text, { normalise: false });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('keeps the file mode', async () => {
    const file = join(dir, 'site.yaml');
    writeFileSync(file, 'lbdesk: 1\n');
    chmodSync(file, 0o600);
    await saveWorkspaceText(file, 'lbdesk: 1\nname: x\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('writes through a symbolic link: the link stays, the target changes', async () => {
    mkdirSync(join(dir, 'real'));
    const target = join(dir, 'real', 'site.yaml');
    writeFileSync(target, 'lbdesk: 1\nname: old\n');
    const link = join(dir, 'link.yaml');
    symlinkSync(target, link);
    const saved = await saveWorkspaceText(link, 'lbdesk: 1\nname: new\n');
    expect(saved).toMatchObject({ path: target, backupPath: `${target}.bak` });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(link, 'utf8')).toBe('lbdesk: 1\nname: new\n');
    expect(readFileSync(`${target}.bak`, 'utf8')).toBe('lbdesk: 1\nname: old\n');
  });

  it('cleans up temporary files a killed writer left, but not those of a live one', async () => {
    const file = join(dir, 'site.yaml');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(dir, `.site.yaml.${dead}.0123abcd.tmp`), 'half');
    writeFileSync(join(dir, `.site.yaml.bak.${dead}.0123abcd.tmp`), 'half');
    writeFileSync(join(dir, `.site.yaml.${process.pid}.89abcdef.tmp`), 'mine, in flight');
    writeFileSync(join(dir, `.other.yaml.${dead}.0123abcd.tmp`), 'another file');
    await saveWorkspaceText(file, 'lbdesk: 1\n');
    expect(leftovers().sort()).toEqual([`.other.yaml.${dead}.0123abcd.tmp`, `.site.yaml.${process.pid}.89abcdef.tmp`]);
  });

  it('leaves no temp file when the backup already is the live file (a writer killed between its renames)', async () => {
    const file = join(dir, 'site.yaml');
    writeFileSync(file, 'lbdesk: 1\nname: old\n');
    // What a kill right after "old -> .bak" and before "new -> live" leaves: two names, one inode.
    linkSync(file, `${file}.bak`);
    await saveWorkspaceText(file, 'lbdesk: 1\nname: new\n');
    expect(leftovers()).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe('lbdesk: 1\nname: new\n');
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe('lbdesk: 1\nname: old\n');
  });

  it('knows a reused pid from the writer: a process started after the temp file was written is not its writer', async () => {
    const file = join(dir, 'site.yaml');
    // A live process that started now; files "written" by that pid a minute ago cannot be its.
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = other.pid!;
      const reused = join(dir, `.site.yaml.${pid}.0123abcd.tmp`);
      const current = join(dir, `.site.yaml.bak.${pid}.89abcdef.tmp`);
      writeFileSync(reused, 'half, from an earlier process with the same pid');
      writeFileSync(current, 'being written by that process');
      const minuteAgo = new Date(Date.now() - 60_000);
      utimesSync(reused, minuteAgo, minuteAgo);
      // An old leftover goes whatever its pid: no writer takes an hour.
      const ancient = join(dir, `.site.yaml.${process.ppid}.00000000.tmp`);
      writeFileSync(ancient, 'half');
      const twoHoursAgo = new Date(Date.now() - 2 * 3600_000);
      utimesSync(ancient, twoHoursAgo, twoHoursAgo);
      await saveWorkspaceText(file, 'lbdesk: 1\n');
      expect(leftovers()).toEqual([`.site.yaml.bak.${pid}.89abcdef.tmp`]);
    } finally {
      other.kill();
    }
  });

  it('refuses text over the size limit', async () => {
    const err = await saveWorkspaceText(join(dir, 'big.yaml'), `a: "${'x'.repeat(16 * 1024 * 1024)}"\n`).catch((e: unknown) => e);
    expect((err as WorkspaceFileError).code).toBe('too-large');
    expect(leftovers()).toEqual([]);
  });

  it('an edited document saves with only the edited line changed', async () => {
    const file = join(dir, 'site.yaml');
    writeFileSync(file, EXAMPLE);
    const loaded = await loadWorkspaceFile(file);
    setField(loaded.doc, ['services', 0, 'port'], 8088);
    await saveWorkspaceText(file, documentToText(loaded.doc));
    expect(readFileSync(file, 'utf8')).toBe(EXAMPLE.replace('    port: 8080\n', '    port: 8088\n'));
    expect(readFileSync(`${file}.bak`, 'utf8')).toBe(EXAMPLE);
  });
});

describe('loadWorkspaceFile', () => {
  it('loads and validates the example', async () => {
    const file = join(dir, 'site.yaml');
    writeFileSync(file, EXAMPLE);
    const loaded = await loadWorkspaceFile(file);
    expect(loaded.problems).toEqual([]);
    expect(loaded.workspace!.name).toBe('lab-site-a');
    expect(loaded.text).toBe(EXAMPLE);
    expect(loaded.mtimeMs).toBeGreaterThan(0);
    expect(documentToText(loaded.doc)).toBe(EXAMPLE);
  });

  it.each([
    ['a missing file', (d: string) => join(d, 'nope.yaml'), 'unreadable', /cannot read .*nope\.yaml: no such file/],
    ['a folder', (d: string) => d, 'not-a-file', /not a regular file/],
    // Opening a FIFO for reading blocks until a writer comes: it must be refused without waiting.
    ['a FIFO', (d: string) => { const f = join(d, 'fifo.yaml'); spawnSync('mkfifo', [f]); return f; }, 'not-a-file', /cannot read .*fifo\.yaml: not a regular file/],
    ['a file over 16 MiB', (d: string) => { const f = join(d, 'big.yaml'); writeFileSync(f, ''); truncateSync(f, 16 * 1024 * 1024 + 1); return f; }, 'too-large', /larger than 16 MiB/],
    ['a file that is not UTF-8', (d: string) => { const f = join(d, 'bin.yaml'); writeFileSync(f, Buffer.from([0x6c, 0x62, 0xff, 0xfe, 0x00])); return f; }, 'not-text', /not UTF-8 text/],
  ] as const)('refuses %s with a WorkspaceFileError naming it', async (_what, make, code, message) => {
    const file = make(dir);
    const err = await loadWorkspaceFile(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkspaceFileError);
    expect((err as WorkspaceFileError).code).toBe(code);
    expect((err as Error).message).toMatch(message);
  });
});

describe('readWorkspaceText', () => {
  it('reads to the end, not to the size stat gave: a /proc file (size 0) whole', async () => {
    const { text } = await readWorkspaceText('/proc/self/status');
    expect(text).toMatch(/^Name:/);
    expect(text).toMatch(/\nPid:\s+\d+\n/);
  });
});

describe('byte-order mark', () => {
  it('a file that starts with a BOM loads with right positions and saves back byte for byte', async () => {
    const file = join(dir, 'bom.yaml');
    const orig = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# site\nlbdesk: 1\nname: bom\nservers:\n  - { name: a, adress: 192.0.2.1 }\n')]);
    writeFileSync(file, orig);
    const loaded = await loadWorkspaceFile(file);
    expect(loaded.problems.map((p) => `${p.line}:${p.col} ${p.path}`)).toEqual(['5:16 servers[0].adress']);
    await saveWorkspaceText(file, loaded.text);
    expect(readFileSync(file).equals(orig)).toBe(true);
  });
});

describe('validateFile', () => {
  const fixture = (name: string) => resolve(__dirname, '../../../fixtures/workspaces', name);
  it.each([
    ['the example', resolve(__dirname, '../../../../assets/demo/lab-site-a.yaml'), 0, 0],
    ['warnings only', fixture('warnings-only.yaml'), 0, 2],
    ['several mistakes', fixture('invalid-several.yaml'), 1, 4],
  ] as const)('%s: exit %d', async (_what, file, code, count) => {
    const r = await validateFile(file);
    expect(r.exitCode).toBe(code);
    expect(r.problems).toHaveLength(count);
  });

  it('an unreadable file: exit 2 with a reason naming the file', async () => {
    expect(await validateFile(join(dir, 'gone.yaml'))).toEqual({ problems: [], exitCode: 2, fatal: `cannot read ${join(dir, 'gone.yaml')}: no such file` });
  });

  it('a folder: exit 2', async () => {
    expect(await validateFile(dir)).toEqual({ problems: [], exitCode: 2, fatal: `cannot read ${dir}: not a regular file` });
  });

  it('a file not text: exit 1 with a problem at its first byte that is not UTF-8', async () => {
    const f = join(dir, 'bin.yaml');
    writeFileSync(f, Buffer.from([0xc3, 0x28]));
    const msg = 'not UTF-8 text: convert it to UTF-8 (e.g. iconv -f latin1 -t utf-8)';
    expect(await validateFile(f)).toEqual({ exitCode: 1, problems: [expect.objectContaining({ file: f, line: 1, col: 1, message: msg })] });
    // Line 3, after a real U+FFFD (text, not a bad byte) on line 2 and an é on line 3.
    writeFileSync(f, Buffer.concat([Buffer.from('lbdesk: 1\n# \uFFFD kept\nname: \u00e9t', 'utf8'), Buffer.from([0xc3]), Buffer.from('\n')]));
    expect(await validateFile(f)).toEqual({ exitCode: 1, problems: [expect.objectContaining({ line: 3, col: 9, message: msg })] });
    // A byte-order mark is no column.
    writeFileSync(f, Buffer.concat([Buffer.from('\uFEFFlbdesk: 1 ', 'utf8'), Buffer.from([0xff])]));
    expect(await validateFile(f)).toEqual({ exitCode: 1, problems: [expect.objectContaining({ line: 1, col: 11, message: msg })] });
  });
});

describe('workspaceStore (for the API handlers)', () => {
  it('saves with a backup and validates text', async () => {
    const file = join(dir, 'site.yaml');
    expect(await workspaceStore.save(file, EXAMPLE)).toEqual({ backupPath: undefined });
    expect(await workspaceStore.save(file, EXAMPLE)).toEqual({ backupPath: `${file}.bak` });
    expect(await workspaceStore.validateText(EXAMPLE, file)).toEqual([]);
    expect(await workspaceStore.validateText('lbdesk: 1\n', file)).toEqual([expect.objectContaining({ path: 'name', message: 'required field is missing' })]);
  });
});
