// Usage errors of the real `lbdesk` CLI: one line each, prefixed `lbdesk:`, naming the command's
// --help, exit 2; --help and --version still work.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { ROOT, lbdeskArgs, runCli } from '../../helpers/cli';
import { usageLine } from '../../../main/cli';

describe('lbdesk usage errors', () => {
  it('an unknown option: one line naming the command, exit 2', async () => {
    const r = await runCli(['validate', '--bogus', 'x.yaml']);
    expect(r).toMatchObject({ code: 2, stdout: '', stderr: "lbdesk: unknown option '--bogus' (lbdesk validate --help for usage)\n" });
  });

  it('a missing argument, an unknown command, too many arguments, a misspelt option', async () => {
    const [missing, command, many, misspelt] = await Promise.all([
      runCli(['validate']),
      runCli(['bogus']),
      runCli(['validate', 'a.yaml', 'b.yaml']),
      runCli(['check', 'a.yaml', '--jsn']),
    ]);
    expect(missing).toMatchObject({ code: 2, stderr: "lbdesk: missing required argument 'workspace' (lbdesk validate --help for usage)\n" });
    expect(command).toMatchObject({ code: 2, stderr: "lbdesk: unknown command 'bogus' (lbdesk --help for usage)\n" });
    expect(many).toMatchObject({ code: 2, stderr: "lbdesk: too many arguments for 'validate'. Expected 1 argument but got 2 (lbdesk validate --help for usage)\n" });
    expect(misspelt).toMatchObject({ code: 2, stderr: "lbdesk: unknown option '--jsn' (did you mean --json?) (lbdesk check --help for usage)\n" });
  });

  it('--confirm-within outside 10s-24h is refused before anything is read or dialled', async () => {
    // 1ms "applied" a push its own timer had already rolled back; 99999999h armed a timer forever.
    const [short, long, zero] = await Promise.all([
      runCli(['push', 'no-such.yaml', '--appliance', 'x', '--confirm-within', '1ms']),
      runCli(['push', 'no-such.yaml', '--appliance', 'x', '--confirm-within', '99999999h']),
      runCli(['push', 'no-such.yaml', '--appliance', 'x', '--confirm-within', '0']),
    ]);
    expect(zero).toMatchObject({ code: 2, stdout: '', stderr: 'lbdesk: --confirm-within 0 must be more than 0\n' });
    // --all with --appliance: a usage error before the (here missing) workspace is read.
    const both = await runCli(['push', 'no-such.yaml', '--all', '--appliance', 'x']);
    expect(both).toMatchObject({ code: 2, stdout: '', stderr: 'lbdesk: --all and --appliance name the appliances twice: give one of them\n' });
    expect(short).toMatchObject({ code: 2, stdout: '', stderr: 'lbdesk: --confirm-within 1ms is out of range: from 10s (time for the push and the confirm) to 24h\n' });
    expect(long).toMatchObject({ code: 2, stdout: '', stderr: 'lbdesk: --confirm-within 99999999h is out of range: from 10s (time for the push and the confirm) to 24h\n' });
  });

  it('--help and --version exit 0 on stdout', async () => {
    const [help, version] = await Promise.all([runCli(['validate', '--help']), runCli(['--version'])]);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: lbdesk validate');
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('a closed standard output ends quietly; a full one is one line, exit 2 (no Node stack trace)', async () => {
    const run = (stdout: 'pipe-closed' | number) => new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn(process.execPath, [...lbdeskArgs(), 'render', 'assets/demo/lab-site-a.yaml', '--appliance', 'lab-haproxy'], {
        cwd: ROOT, stdio: ['ignore', stdout === 'pipe-closed' ? 'pipe' : stdout, 'pipe'],
      });
      // The reader is gone before lbdesk writes a byte (`| head -0`).
      if (stdout === 'pipe-closed') child.stdout!.destroy();
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d));
      child.on('close', (code) => done({ code, stderr }));
    });
    const closed = await run('pipe-closed');
    expect(closed.code).toBe(0);
    expect(closed.stderr).not.toMatch(/Unhandled|^\s+at /m);
    const full = openSync('/dev/full', 'w');
    try {
      const r = await run(full);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n').at(-1)).toBe('lbdesk: cannot write to standard output: no space left on the device');
      expect(r.stderr).not.toMatch(/Unhandled|^\s+at /m);
    } finally {
      closeSync(full);
    }
  });

  it('commander messages become one line', () => {
    expect(usageLine("error: option '--ui-port <port>' argument 'x' is invalid. a port is a whole number", 'lbdesk demo'))
      .toBe("option '--ui-port <port>' argument 'x' is invalid: a port is a whole number (lbdesk demo --help for usage)");
  });
});
