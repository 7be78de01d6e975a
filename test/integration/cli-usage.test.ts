// Usage errors of the real `lbdesk` CLI: one line each, prefixed `lbdesk:`, naming the command's
// --help, exit 2; --help and --version still work.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli';
import { usageLine } from '../../main/cli/index';

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

  it('--help and --version exit 0 on stdout', async () => {
    const [help, version] = await Promise.all([runCli(['validate', '--help']), runCli(['--version'])]);
    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toContain('Usage: lbdesk validate');
    expect(version).toMatchObject({ code: 0, stderr: '' });
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('commander messages become one line', () => {
    expect(usageLine("error: option '--ui-port <port>' argument 'x' is invalid. a port is a whole number", 'lbdesk demo'))
      .toBe("option '--ui-port <port>' argument 'x' is invalid: a port is a whole number (lbdesk demo --help for usage)");
  });
});
