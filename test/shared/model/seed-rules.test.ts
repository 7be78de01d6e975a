// Rules read from the seeds and the secrets promise that sit beside the range checks: secret
// fields hold names only, an LDAP bind needs its secret, Delete Age below its default warns.
import { describe, expect, it } from 'vitest';
import { base, edit, errorsOf, problemsOf, warningsOf } from '../../helpers/model';

const DIR_CHECK = ['groups', 1, 'healthCheck'];

describe('secret fields hold the name of a stored secret, never the secret', () => {
  it.each([
    ['a RADIUS shared secret typed in', ['groups', 2, 'healthCheck'], { type: 'radius', radius: { secret: 'Sup3r$ecret-plaintext!' } }, 'Sup3r$ecret-plaintext!', 'groups[2].healthCheck.radius.secret'],
    ['an LDAP bind password typed in', DIR_CHECK, { type: 'auto', protocol: 'ldap', ldap: { bindDn: 'cn=probe', bindSecret: 'p@ss word' } }, 'p@ss word', 'groups[1].healthCheck.ldap.bindSecret'],
  ])('%s is refused without repeating it', (_what, at, check, secret, where) => {
    const errs = errorsOf(problemsOf(edit(base(), at as (string | number)[], check)));
    const mine = errs.find((p) => p.path === where);
    expect(mine?.message).toMatch(/must be the name of a secret in the secret store .* not the secret itself/);
    for (const p of errs) expect(p.message).not.toContain(secret);
  });

  it('plain names pass', () => {
    const ok = edit(base(), DIR_CHECK, { type: 'auto', protocol: 'ldap', ldap: { baseDn: 'cn=monitor', bindDn: 'cn=probe', bindSecret: 'dir-probe.v2_A' } });
    expect(errorsOf(problemsOf(ok))).toEqual([]);
  });
});

describe('LDAP bind settings', () => {
  it('bindDn without bindSecret is an error (every check would fail)', () => {
    const errs = errorsOf(problemsOf(edit(base(), [...DIR_CHECK, 'ldap', 'bindDn'], 'cn=probe')));
    expect(errs.map((p) => `${p.path}: ${p.message}`)).toEqual([expect.stringMatching(/^groups\[1\]\.healthCheck\.ldap\.bindSecret: bindDn needs bindSecret/)]);
  });

  it('bindSecret without bindDn warns that the search stays anonymous', () => {
    const problems = problemsOf(edit(base(), [...DIR_CHECK, 'ldap', 'bindSecret'], 'dir-probe'));
    expect(errorsOf(problems)).toEqual([]);
    expect(warningsOf(problems).map((p) => p.message)).toContainEqual(expect.stringMatching(/no effect without bindDn/));
  });
});

describe('Delete Age (seed 003: inadvisable to reduce below the default 600 s)', () => {
  it.each([[10, true], [599, true], [600, false], [3600, false]])('deleteAge %i warns: %s', (age, warns) => {
    const problems = problemsOf(edit(base(), ['targetSets', 0, 'deleteAge'], age));
    expect(errorsOf(problems)).toEqual([]);
    const w = warningsOf(problems).filter((p) => p.path === 'targetSets[0].deleteAge');
    expect(w.length).toBe(warns ? 1 : 0);
    if (warns) expect(w[0]!.message).toBe(`${age} s is below the default 600 s: idle connections are dropped sooner, which the vendor advises against`);
  });
});

describe('timers that stretch (one check in flight per member)', () => {
  it('a timeout longer than the interval or the retryInterval warns where it is set', () => {
    const workspace = edit(edit(base(), ['servers', 0, 'healthTimers'], { timeout: '40s', interval: '15s' }), ['groups', 0, 'healthTimers'], { timeout: '20s' });
    const problems = problemsOf(workspace);
    expect(errorsOf(problems)).toEqual([]);
    expect(warningsOf(problems).filter((p) => /healthTimers\.timeout$/.test(p.path)).map((p) => `${p.path}: ${p.message}`)).toEqual([
      'servers[0].healthTimers.timeout: timeout 40s is longer than the interval 15s: a server that stops answering is checked every 40s at best, not every 15s',
      'groups[0].healthTimers.timeout: timeout 20s is longer than the retryInterval 10s: retries of a silent server come every 20s at best',
    ]);
  });

  it('the defaults and the demo site do not warn', () => {
    expect(warningsOf(problemsOf(base())).filter((p) => p.path.endsWith('timeout'))).toEqual([]);
  });
});
