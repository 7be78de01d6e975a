// The interactive CLI session against an in-process SSH server that behaves like a vendor
// CLI: prompts that change with the mode, `--More--` paging, `(y/n)` questions, `% Error`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SshConnection } from '../../../../../main/services/ssh';
import { cliPatterns, compilePattern } from '../../../../../main/services/drivers/box-patterns';
import { BoxSession, promptBase } from '../../../../../main/services/sync/commands';
import { cleanScreen, lastLine } from '../../../../../main/services/sync/commands/screen';
import { redact } from '../../../../../main/services/sync/commands/redact';
import { connectTo } from '../../../../helpers/command-boxes/connect';
import { startFakeAppliance, type FakeAppliance } from '../../../../helpers/command-boxes/fake-appliance';

describe('terminal output cleaning', () => {
  it('drops escapes, applies backspaces and carriage-return overwrites', () => {
    expect(cleanScreen('\x1b[1mbold\x1b[0m\r\n--More--\r        \rnext line  \r\n')).toBe('bold\nnext line\n');
    expect(cleanScreen('abc\b\bX\r\n')).toBe('aX\n');
    expect(lastLine('line\r\nADX(config)#')).toBe('ADX(config)#');
    expect(lastLine('x\n--More--\b\b\b\b\b\b\b\b        \b\b\b\b\b\b\b\b')).toBe('');
  });

  it('knows a prompt by its host name, and patterns may be case-insensitive', () => {
    expect(promptBase('ADX(config-rs-web1)#')).toBe('ADX');
    expect(promptBase('* SummitPx1:28 #')).toBe('SummitPx1');
    expect(compilePattern('(?i)^error').test('ERROR: x')).toBe(true);
    const p = cliPatterns(undefined);
    for (const prompt of ['ADX#', 'ADX(config)#', 'ADX(config-rs-web1)#', 'SummitPx1:28 # ', '* SummitPx1:29 #', 'admin@px>', 'user@host:~$ ']) {
      expect(p.prompt.test(prompt), prompt).toBe(true);
    }
    for (const notPrompt of ['% Error: invalid input at line 3', '--More--', 'Are you sure? (y/n)', 'server real web1 192.0.2.21']) {
      expect(p.prompt.test(notPrompt), notPrompt).toBe(false);
    }
    expect(p.confirm.test('Are you sure? (y/n)')).toBe(true);
    expect(p.confirm.test('Do you want to save to the primary configuration? [yes/no]: ')).toBe(true);
    expect(p.pager.test('--More--')).toBe(true);
    expect(p.pager.test(' -- More -- ')).toBe(true);
    expect(p.errors.some((re) => re.test('% Error: invalid input at line 4'))).toBe(true);
    expect(p.errors.some((re) => re.test("Invalid input detected at '^' marker."))).toBe(true);
    expect(p.errors.some((re) => re.test('Error: no such server'))).toBe(true);
    expect(p.errors.some((re) => re.test('server real web1 192.0.2.21'))).toBe(false);
  });

  it('redacts secrets', () => {
    expect(redact('enable password s3cret\n radius-server key "a b"\nsnmp community public')).toBe(
      'enable password <redacted>\n radius-server key <redacted>\nsnmp community <redacted>');
  });
});

describe('BoxSession against a vendor-like CLI', () => {
  let adx: FakeAppliance;
  let px: FakeAppliance;
  let adxConn: SshConnection;
  let pxConn: SshConnection;
  const patterns = cliPatterns(undefined);

  beforeAll(async () => {
    adx = await startFakeAppliance({ host: '127.0.9.2', failOn: 'server real bad 192.0.2.99', hangOn: 'debug all' });
    px = await startFakeAppliance({ host: '127.0.9.3', style: 'px', pageLines: 3 });
    adxConn = await connectTo(adx);
    pxConn = await connectTo(px);
  });
  afterAll(async () => {
    adxConn?.close();
    pxConn?.close();
    await adx?.stop();
    await px?.stop();
  });

  it('follows the prompt through configuration modes', async () => {
    const s = await BoxSession.open(adxConn.client, { patterns, timeoutMs: 3000 });
    try {
      expect(s.currentPrompt).toBe('ADX#');
      expect((await s.run('configure terminal')).prompt).toBe('ADX(config)#');
      const r = await s.run('server real web1 192.0.2.21');
      expect(r).toMatchObject({ output: '', prompt: 'ADX(config-rs-web1)#' });
      expect(r.error).toBeUndefined();
      expect((await s.run(' port 8081')).prompt).toBe('ADX(config-rs-web1)#');
      expect((await s.run('end')).prompt).toBe('ADX#');
      expect(s.transcript).toContain('ADX(config)#server real web1 192.0.2.21\n');
    } finally {
      s.close();
    }
  });

  it('pages through --More-- and leaves no pager text in the output', async () => {
    const s = await BoxSession.open(adxConn.client, { patterns, timeoutMs: 3000 });
    try {
      const r = await s.run('show version');
      const lines = r.output.split('\n');
      expect(lines).toHaveLength(30);
      expect(lines[0]).toBe('line 1 of the version text');
      expect(lines[29]).toBe('line 30 of the version text');
      expect(r.output).not.toMatch(/more/i);
    } finally {
      s.close();
    }
  });

  it('answers the confirmation question and reports the error line', async () => {
    const s = await BoxSession.open(adxConn.client, { patterns, timeoutMs: 3000 });
    try {
      const w = await s.run('write memory');
      expect(w.answered).toEqual(['Are you sure? (y/n)']);
      expect(w.output).toContain('Write startup-config done.');
      expect(w.error).toBeUndefined();
      await s.run('configure terminal');
      const bad = await s.run('server real bad 192.0.2.99');
      expect(bad.error).toMatch(/^% Error: invalid input at line \d+$/);
      const no = await s.run('not-a-command');   // accepted in config mode by this box
      expect(no.error).toBeUndefined();
    } finally {
      s.close();
    }
  });

  it('times out with a clear message when the prompt never comes back, and recovers with Ctrl-C', async () => {
    const s = await BoxSession.open(adxConn.client, { patterns, timeoutMs: 600 });
    try {
      const started = Date.now();
      await expect(s.run('debug all')).rejects.toThrow(/no prompt within 600 ms after "debug all"/);
      expect(Date.now() - started).toBeLessThan(3000);
      expect(await s.interrupt()).toBe(true);
      expect((await s.run('show version')).output.split('\n')).toHaveLength(30);
    } finally {
      s.close();
    }
  });

  it('handles a Px-style prompt whose number changes with every command', async () => {
    const s = await BoxSession.open(pxConn.client, { patterns, timeoutMs: 3000 });
    try {
      expect(s.currentPrompt).toBe('SummitPx1:1 # ');
      await s.run('create slb server web1 192.0.2.21');
      const r = await s.run('configure slb server web1 health-check interval 5');
      expect(r.prompt).toBe('* SummitPx1:3 # ');
      const show = await s.run('show configuration');
      expect(show.output).toContain('create slb server web1 192.0.2.21');
      expect(show.output).not.toMatch(/more/i);
      const bad = await s.run('frobnicate');
      expect(bad.error).toBe("Invalid input detected at '^' marker.");
      const save = await s.run('save configuration');
      expect(save.answered).toHaveLength(1);
      expect(save.prompt).toBe('SummitPx1:6 # ');
    } finally {
      s.close();
    }
  });

  it('sends one command as one line: a line break, CR, tab or NUL inside is refused before anything is sent', async () => {
    const s = await BoxSession.open(adxConn.client, { patterns, timeoutMs: 3000 });
    try {
      const before = adx.received.length;
      for (const command of ['show version\nwrite erase', 'show version\rwrite erase', 'show\tversion', 'show\0version']) {
        await expect(s.run(command), JSON.stringify(command)).rejects.toThrow(/^a command cannot contain a line break or another control character$/);
      }
      expect(adx.received.slice(before)).toEqual([]);
    } finally {
      s.close();
    }
  });

  it('fails fast when the session closes', async () => {
    const s = await BoxSession.open(adxConn.client, { patterns, timeoutMs: 3000 });
    await expect(s.run('exit')).rejects.toThrow(/closed/);
    expect(s.isClosed).toBe(true);
  });
});
