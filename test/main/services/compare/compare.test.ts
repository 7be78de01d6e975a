// `lbdesk compare`: the lab and real HAProxy (master-worker, loopback) run the same traffic and
// faults; every difference beyond measurement noise must be explained by a render warning.
import { describe, expect, it } from 'vitest';
import type { CompareReport } from '../../../../shared/api/compare';
import { workspaceSchema } from '../../../../shared/model/schema';
import { compareWithAppliance } from '../../../../main/services/compare';
import { compare } from '../../../../main/services/compare/report';
import type { Plan } from '../../../../main/services/compare/plan';
import type { SideResult } from '../../../../main/services/compare/run';
import { TIMING_WARNING, PASSIVE_WARNING } from '../../../../main/services/drivers/haproxy-checks';
import { HAPROXY_CANDIDATES } from '../../../../main/services/compare/sides';
import { existsSync, readFileSync } from 'node:fs';
import { runCli } from '../../../helpers/cli';
import { skipBecause } from '../../../helpers/skip';

const noHaproxy = HAPROXY_CANDIDATES.some((p) => existsSync(p)) ? '' : ' (skipped: haproxy is not installed)';

function summary(r: CompareReport): string {
  return r.differences.map((d) => `${d.explainedBy ? 'explained' : 'UNEXPLAINED'} ${d.service} ${d.member ?? ''} ${d.what}: ${d.lab} / ${d.appliance}`).join('\n');
}

describe.skipIf(skipBecause(noHaproxy, 'compare against real HAProxy'))(`compare against real HAProxy${noHaproxy}`, () => {
  it('the demo workspace: no unexplained difference; the LDAP service is named as not compared; no degraded state is explained', async () => {
    const r = await runCli(['compare', 'assets/demo/lab-site-a.yaml', '--appliance', 'lab-haproxy', '--time-scale', '0.03', '--json'], { timeoutMs: 90_000 });
    const report = JSON.parse(r.stdout) as CompareReport;
    expect(report.unexplained, summary(report)).toBe(0);
    expect(r.code).toBe(0);
    expect(report.skipped).toEqual([{ service: 'ldap-vip', reason: 'check ldap: its check needs an LDAP server' }]);
    expect(report.remapped).toContain(`service web-vip: 127.0.0.10:8080 -> ${report.remapped[0]!.split(' -> ')[1]}`);
    expect(report.members.map((m) => m.member)).toEqual(['web1', 'web2']);
    // Both sides served every client: redispatch on the appliance too.
    expect(report.errors).toEqual([{ service: 'web-vip', errors: { lab: 0, appliance: 0 }, attempts: expect.anything(), kinds: { lab: {}, appliance: {} } }]);
    // Slowed past degradedAbove: the lab shows degraded, HAProxy cannot.
    const slowed = report.faults.find((f) => f.fault === 'slowed')!;
    expect(slowed.lab.degraded).toBe(true);
    expect(slowed.appliance.downMs).toBeUndefined();
    expect(report.differences).toContainEqual(expect.objectContaining({ what: 'slowed: state', explainedBy: expect.stringContaining('HAProxy has no degraded state') }));
    // A refusing member: out on both sides, with no client error.
    const refusing = report.faults.find((f) => f.fault === 'refusing')!;
    expect(refusing.lab.downMs).toBeGreaterThan(0);
    expect(refusing.appliance.downMs).toBeGreaterThan(0);
  }, 100_000);

  it('every algorithm and every check both run: no unexplained difference; weights scaled to 256 keep the shares', async () => {
    const r = await runCli(['compare', 'test/fixtures/workspaces/compare-all.yaml', '--appliance', 'edge', '--json'], { timeoutMs: 90_000 });
    const report = JSON.parse(r.stdout) as CompareReport;
    expect(report.unexplained, summary(report)).toBe(0);
    expect(report.skipped).toEqual([]);
    expect(report.errors.map((e) => e.service)).toEqual(['rr-tcp', 'wrr-http', 'lc-head', 'sh-smtp', 'hw-ftp', 'rr-pop3', 'rr-imap4', 'rr-nntp', 'wrr-rtsp']);
    expect(report.warnings).toContainEqual('service wrr-rtsp: weights 1000/3000 scaled to 85/256 (HAProxy weights are 0-256)');
    const rtsp = report.members.filter((m) => m.service === 'wrr-rtsp');
    expect(Math.abs(rtsp[1]!.share.lab - rtsp[1]!.share.appliance)).toBeLessThan(10);
    // Refused connections never reach a client on either side (lab redispatch, HAProxy redispatch
    // + retries); what clients may see is a frozen member's silence (timeout) before it is out.
    for (const e of report.errors) {
      for (const side of ['lab', 'appliance'] as const) expect(Object.keys(e.kinds[side]).filter((k) => k !== 'timeout' && k !== 'closed without an answer'), `${e.service} ${side}: ${JSON.stringify(e.kinds)}`).toEqual([]);
    }
  }, 100_000);

  it('a site imported from F5 (no timers of its own) compares against its HAProxy render in seconds at --time-scale 0.05', async () => {
    const { importF5 } = await import('../../../../main/services/drivers/f5/import');
    const file = 'test/fixtures/import/f5/corkscrew-devcloud01.conf';
    const r = importF5(readFileSync(file, 'utf8'), file);
    const workspace = workspaceSchema.parse({ ...r.workspace, appliances: [{ name: 'lab', host: '192.0.2.10', driver: 'haproxy' }] });
    const report = await compareWithAppliance(workspace, workspace.appliances[0]!, { workspacePath: '/tmp/f5.yaml', timeScale: 0.05, faults: ['stopped'] });
    console.log(`imported F5 site, fault stopped: ${report.durationMs} ms`);
    expect(report.unexplained, summary(report)).toBe(0);
    expect(report.members.map((m) => m.member)).toEqual(['app1_Node1', 'app1_Node2', 'app2_Node1', 'app2_Node2', 'app3_Node1', 'app3_Node2']);
    expect(report.durationMs).toBeLessThan(30_000);
  }, 60_000);

  it('HAProxy times retries from the end of a check: a frozen server goes out later, explained by that warning', async () => {
    // Four failures needed and checks that time out at 400 ms: each HAProxy retry waits for the
    // timeout and then fastinter (700 ms), the lab's only for max(retryInterval, timeout) (400 ms).
    const workspace = workspaceSchema.parse({
      lbdesk: 1, name: 'timing',
      healthTimers: { interval: '100ms', retryInterval: '300ms', failAfter: 4, restoreAfter: 1, timeout: '400ms' },
      servers: [{ name: 'w1', address: '192.0.2.21' }, { name: 'w2', address: '192.0.2.22' }],
      groups: [{ name: 'web', members: [{ server: 'w1', port: 8081 }, { server: 'w2', port: 8081 }], healthCheck: { type: 'http', http: { path: '/status', expect: 'OK' } } }],
      services: [{ name: 'web', address: '192.0.2.10', port: 80, group: 'web' }],
      appliances: [{ name: 'edge', host: '192.0.2.1', driver: 'haproxy' }],
    });
    const report = await compareWithAppliance(workspace, workspace.appliances[0]!, { workspacePath: '/tmp/timing.yaml', faults: ['stopped'] });
    console.log(`frozen server out: lab ${report.faults[0]!.lab.downMs} ms, HAProxy ${report.faults[0]!.appliance.downMs} ms`);
    expect(report.unexplained, summary(report)).toBe(0);
    const stopped = report.faults.find((f) => f.fault === 'stopped')!;
    const later = stopped.appliance.downMs! - stopped.lab.downMs!;
    expect(later, `lab ${stopped.lab.downMs} ms, HAProxy ${stopped.appliance.downMs} ms`).toBeGreaterThan(0);
    expect(report.differences).toContainEqual(expect.objectContaining({ what: 'stopped: time to down', explainedBy: `service web: ${TIMING_WARNING}` }));
  }, 60_000);
});

describe('compare explains or flags (pure)', () => {
  const timers = { interval: 400, retryInterval: 200, failAfter: 2, restoreAfter: 2, timeout: 300, source: {} as never };
  const plan = { services: [{ name: 'web', address: '', port: 0, algorithm: 'round-robin', check: { type: 'tcp' }, timers, members: [{ id: 'a:1', server: 'a', weight: 1, enabled: true }, { id: 'b:1', server: 'b', weight: 1, enabled: true }] }] } as unknown as Plan;
  const side = (refusedDown: number, answers: [string, number][]): SideResult => ({
    traffic: new Map([['web', answers.flatMap(([id, n]) => Array.from({ length: n }, () => ({ at: 0, backend: id })))]]),
    faults: new Map([['web/refusing', { downMs: refusedDown, upMs: 300 }], ['web/stopped', {}], ['web/slowed', {}], ['web/wrong-content', {}]]),
  });
  const warnings = [{ subject: 'service web', message: PASSIVE_WARNING }, { subject: 'service web', message: TIMING_WARNING }];

  it('HAProxy taking a refusing member out a retry interval later is passive detection', () => {
    const r = compare(plan, side(200, [['a:1', 50], ['b:1', 50]]), side(200 + 400 + 200 + 50, [['a:1', 50], ['b:1', 50]]), warnings);
    expect(r.differences).toEqual([expect.objectContaining({ what: 'refusing: time to down', explainedBy: `service web: ${PASSIVE_WARNING}` })]);
  });

  it('two seconds later, or a share of 20 % against 50 %, is flagged unexplained', () => {
    const r = compare(plan, side(200, [['a:1', 100], ['b:1', 100]]), side(2200, [['a:1', 40], ['b:1', 160]]), []);
    expect(r.differences.map((d) => [d.what, d.explainedBy])).toEqual([['refusing: time to down', undefined], ['share of connections', undefined], ['share of connections', undefined]]);
  });
});

describe('compare where the appliance cannot run', () => {
  it('keepalived: says why not (IPVS), exit 2', async () => {
    const r = await runCli(['compare', 'test/fixtures/workspaces/rich.yaml', '--appliance', 'lvs']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/cannot compare with lvs: keepalived (balances through the kernel's IPVS|needs a network namespace)/);
  });
});
