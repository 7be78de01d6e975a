// `lbdesk check WS [--group G] [--json]`: every member's start-up check, once.
// Exit status is Nagios-style: 0 all available, 1 some degraded, 2 some unavailable, and
// 3 (UNKNOWN) when nothing could be checked (unreadable or invalid workspace, unknown group).
import type { Command } from 'commander';
import type { CertificateSeen, MemberStatus } from '../../../shared/api/types';
import type { Workspace } from '../../../shared/model/schema';
import { certLevel, expiryWords } from '../../../shared/model/certificates';
import { cutText } from '../../../shared/model/text-rules';
import { HealthChecker } from '../../services/health';
import { memberSelector } from '../../services/health/members';
import { CliError } from '../errors';
import { CLI_SECRETS_HELP, secretsForChecks } from '../secrets-env';
import { readWorkspace } from '../workspace';

export const EXIT_UNKNOWN = 3;

interface CheckOptions {
  group?: string;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('check')
    .description("run every member's first health check once and print one row per member (exit 0 all available, 1 some degraded, 2 some unavailable, 3 could not check)")
    .argument('<workspace>', 'workspace file')
    .option('--group <name>', 'only the members of this server group (tsN: target set N)')
    .option('--json', 'one JSON document on stdout: { "members": [...] }, or { "error": "...", "members": [] } when nothing could be checked')
    .addHelpText('after', `\n${CLI_SECRETS_HELP}`)
    .action(async (file: string, opts: CheckOptions) => {
      let workspace: Workspace;
      try {
        ({ workspace } = await readWorkspace(file, { unreadable: EXIT_UNKNOWN, invalid: EXIT_UNKNOWN }));
        if (opts.group !== undefined && !memberSelector(workspace, opts.group)) {
          const known = [...workspace.groups.map((g) => g.name), ...workspace.targetSets.map((t) => `ts${t.number}`)];
          throw new CliError(`unknown group "${opts.group}" (known: ${known.length ? known.join(', ') : 'none'})`, EXIT_UNKNOWN);
        }
      } catch (err) {
        // A script reading --json gets a document either way; the line on stderr stays.
        if (opts.json && err instanceof CliError) process.stdout.write(`${JSON.stringify({ error: err.message, members: [] }, null, 2)}\n`);
        throw err;
      }
      const secrets = await secretsForChecks(workspace, opts.group);
      for (const m of secrets.missing) process.stderr.write(`lbdesk: warning: ${m}\n`);
      const checker = new HealthChecker({ secrets: secrets.store });
      const certs = new Map<string, CertificateSeen>();
      const members = (await checker.checkOnce(workspace, opts.group, { onResult: (key, r) => r.certificate && certs.set(key, r.certificate) })).map(forCli);
      if (opts.json) process.stdout.write(`${JSON.stringify({ members: members.map((m) => toJson(m, certs.get(m.key))) }, null, 2)}\n`);
      else process.stdout.write(table(members) + certLines(members, certs));
      process.exitCode = members.some((m) => m.state === 'unavailable') ? 2 : members.some((m) => m.state === 'degraded') ? 1 : 0;
    });
}

/** Disabled members are listed as unavailable with reason "disabled" (cli.md). */
function forCli(m: MemberStatus): MemberStatus {
  if (m.state !== 'disabled') return m;
  return { ...m, state: 'unavailable', reason: m.reason === 'disabled' ? 'disabled' : `disabled: ${m.reason}` };
}

function toJson(m: MemberStatus, certificate: CertificateSeen | undefined) {
  return {
    ...(m.group !== undefined ? { group: m.group } : {}),
    ...(m.targetSet !== undefined ? { targetSet: m.targetSet } : {}),
    server: m.server,
    address: m.address,
    ...(m.port !== undefined ? { port: m.port } : {}),
    check: m.check,
    layer: m.layer,
    state: m.state,
    score: m.score,
    ...(m.rttMs !== undefined ? { rttMs: Math.round(m.rttMs * 100) / 100 } : {}),
    reason: m.reason,
    // What a TLS check saw, dates as ISO text for scripts (daysLeft at the check's time).
    ...(certificate ? { certificate: { ...certificate, notBefore: new Date(certificate.notBefore).toISOString(), notAfter: new Date(certificate.notAfter).toISOString() } } : {}),
  };
}

/** A row is one line whatever a value or a server's answer holds, and no cell floods it. */
const CELL_MAX = 80;
const REASON_MAX = 300;

function table(members: MemberStatus[]): string {
  const rows = members.map((m) => [
    m.group ?? `ts${m.targetSet}`,
    m.server,
    m.address,
    m.port === undefined ? '-' : String(m.port),
    m.check,
    m.state,
    String(m.score),
    m.rttMs === undefined ? '-' : `${Math.round(m.rttMs * 100) / 100} ms`,
    m.reason,
  ].map((cell, i) => cutText(cell, i === 8 ? REASON_MAX : CELL_MAX)));
  const head = ['GROUP', 'SERVER', 'ADDRESS', 'PORT', 'CHECK', 'STATE', 'SCORE', 'RTT', 'REASON'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ').trimEnd();
  const count = (s: string) => members.filter((m) => m.state === s).length;
  const summary = `${members.length} member${members.length === 1 ? '' : 's'}: ${count('available')} available, ${count('degraded')} degraded, ${count('unavailable')} unavailable`;
  return [line(head), ...rows.map(line), '', summary, ''].join('\n');
}

/** After the table: each certificate a TLS check saw, with its expiry (a warning under 30 days). */
function certLines(members: MemberStatus[], certs: Map<string, CertificateSeen>): string {
  const at = Date.now();
  const lines = members.flatMap((m) => {
    const c = certs.get(m.key);
    if (!c) return [];
    const level = certLevel(c, at);
    const flag = level === 'expired' ? 'EXPIRED: ' : level === 'warning' ? 'WARNING: ' : '';
    return [cutText(`certificate ${m.group ?? `ts${m.targetSet}`}/${m.server}: ${c.subject} ${flag}${expiryWords(c, at)} (${new Date(c.notAfter).toISOString()})`, REASON_MAX)];
  });
  return lines.length ? `${lines.join('\n')}\n` : '';
}
