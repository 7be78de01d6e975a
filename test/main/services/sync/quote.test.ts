// Quoting for remote commands, checked by a real shell.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { fillFile, shq, shScript } from '../../../../main/services/sync/quote';

const sh = (cmd: string) => execFileSync('sh', ['-c', cmd], { encoding: 'utf8' });
const NASTY = `/tmp/a dir/it's "quoted" $(touch /tmp/lbdesk-pwned) \`x\` ; rm -rf / #\n.cfg`;

describe('remote shell quoting', () => {
  it('passes any path through sh unchanged', () => {
    expect(sh(`printf %s ${shq(NASTY)}`)).toBe(NASTY);
  });

  it('fills {file} bare or already quoted', () => {
    for (const cmd of ['printf %s {file}', 'printf %s "{file}"', "printf %s '{file}'"]) {
      expect(sh(fillFile(cmd, NASTY))).toBe(NASTY);
    }
    expect(sh(fillFile('printf "%s|%s" {file} {file}', 'a b'))).toBe('a b|a b');
  });

  it('hands script arguments over as $1…, never as code', () => {
    expect(sh(shScript('printf "%s|%s" "$1" "$2"', [NASTY, 'two']))).toBe(`${NASTY}|two`);
    expect(() => shq('nul\0byte')).toThrow(/NUL/);
  });
});
