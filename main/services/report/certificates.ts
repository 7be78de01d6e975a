// The members' certificates for a change report: what the lab's latest TLS checks saw when it
// runs this workspace, else one TLS check (https, ssl) of each such member made now. Nothing is
// dialled for an offline report.
import type { LabSession, LabStatus } from '../../../shared/api/contract';
import type { ReportCertificate, ReportCertificates } from '../../../shared/api/report';
import type { CheckResult, MemberStatus } from '../../../shared/api/types';
import type { Workspace } from '../../../shared/model/schema';
import { HealthChecker } from '../health';
import { MemorySecretStore } from '../secrets/memory';

const TLS_CHECKS = new Set(['https', 'ssl']);

export interface CertificateSources {
  /** The lab's status and latest results, when it runs this workspace. */
  lab?: { status: LabStatus; latest: LabSession['latest'] };
  /** The workspace, to check its TLS members when the lab does not run it. */
  workspace?: Workspace;
  /** False for an offline report: no member is dialled. */
  ask: boolean;
}

export async function reportCertificates(src: CertificateSources): Promise<ReportCertificates> {
  if (src.lab) {
    const members = new Map(src.lab.status.members.map((m) => [m.key, m]));
    return { source: 'lab', list: rows(src.lab.latest.map(({ key, result }) => [members.get(key), result])) };
  }
  if (!src.ask) return { source: 'not-checked', note: 'offline report: the members were not checked', list: [] };
  if (!src.workspace) return { source: 'not-checked', note: 'the workspace has errors: its members were not checked', list: [] };
  const results = new Map<string, CheckResult>();
  // TLS checks need no secrets: an empty store.
  const checker = new HealthChecker({ secrets: new MemorySecretStore() });
  const statuses = await checker.checkOnce(src.workspace, undefined, {
    only: (spec) => TLS_CHECKS.has(spec.check.type),
    onResult: (key, r) => results.set(key, r),
  });
  return { source: 'check', list: rows(statuses.map((m) => [m, results.get(m.key)])) };
}

function rows(pairs: [MemberStatus | undefined, CheckResult | undefined][]): ReportCertificate[] {
  const out: ReportCertificate[] = [];
  for (const [m, r] of pairs) {
    if (!m || !r?.certificate) continue;
    out.push({
      group: m.group ?? `ts${m.targetSet ?? ''}`, server: m.server, address: m.address, ...(m.port !== undefined ? { port: m.port } : {}),
      ...r.certificate, at: r.at,
    });
  }
  return out;
}
