// The words of a change report, once, as neutral blocks: the Markdown and HTML writers only
// mark them up. Times are ISO 8601 (UTC), as every export of lbdesk's.
import type { ChangeReport, ReportAppliance, ReportCertificates, ReportLab } from '../../../shared/api/report';
import { certLevel, expiryWords } from '../../../shared/model/certificates';
import type { ApiProblem } from '../../../shared/api/contract';
import { outForWords } from '../sync/kept';

/** Text with code spans: a string is plain text, `{ code }` is shown as code, `{ warn }` stands out (bold; red when `bad`). */
export type Inline = (string | { code: string } | { warn: string; bad?: boolean })[];
export type Block =
  | { heading: 1 | 2 | 3; text: string }
  | { facts: [string, Inline][] }
  | { para: Inline }
  | { list: Inline[] }
  | { diff: string }
  | { table: { head: string[]; rows: Inline[][] } };

export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export function reportBlocks(r: ChangeReport): Block[] {
  const w = r.workspace;
  const out: Block[] = [
    { heading: 1, text: `Change report: ${w.name || w.path}` },
    {
      facts: [
        ['Workspace', [{ code: w.path }, ...(w.unsaved ? [' — with unsaved edits: this report is of the text on screen, not of the file'] : [])]],
        ['sha256', [{ code: w.sha256 }, ` (${w.bytes} bytes)`]],
        ['Made', [iso(r.at), ` by lbdesk ${r.version}`]],
        ['Validation', [validationWords(r)]],
        ['Lab', [labWords(r.lab)]],
      ],
    },
    ...validationBlocks(r.validation.problems, r.validation.errors + r.validation.warnings),
    ...capacityBlocks(r.capacity),
    { heading: 2, text: 'Appliances' },
  ];
  if (r.appliancesNote) out.push({ para: [r.appliancesNote] });
  else if (!r.appliances.length) out.push({ para: ['The workspace has no appliances.'] });
  for (const a of r.appliances) out.push(...applianceBlocks(a, r.at));
  out.push(...labBlocks(r.lab));
  out.push(...certificateBlocks(r.certificates, r.at));
  return out;
}

function certificateBlocks(c: ReportCertificates | undefined, made: number): Block[] {
  if (!c) return [];
  const out: Block[] = [{ heading: 2, text: 'Certificates' }];
  const from = c.source === 'lab' ? 'Seen by the lab\'s latest TLS checks' : 'Seen by a TLS check of each https and ssl member, made for this report';
  if (c.source === 'not-checked') return [...out, { para: [`Not checked: ${c.note ?? 'no reason given'}.`] }];
  if (!c.list.length) return [...out, { para: [`${from}: no certificate (no member is checked over TLS, or none completed a handshake).`] }];
  const warned = c.list.filter((x) => certLevel(x, made) !== 'ok').length;
  out.push({ para: [`${from}; days left count from the check. `, ...(warned ? [{ warn: `${plural(warned, 'certificate')} expired or expiring within 30 days.`, bad: c.list.some((x) => certLevel(x, made) === 'expired') }] : ['None expires within 30 days.'])] });
  out.push({
    table: {
      head: ['Group', 'Server', 'Subject', 'Issuer', 'Names', 'Not after', 'Days left', 'sha256'],
      rows: c.list.map((x) => {
        const level = certLevel(x, x.at);
        const days: Inline = level === 'ok' ? [String(x.daysLeft)] : [{ warn: `${x.daysLeft} (${level === 'expired' ? 'EXPIRED' : 'WARNING'}: ${expiryWords(x, x.at)})`, bad: level === 'expired' }];
        return [[x.group], [x.server, ' ', { code: `${x.address}${x.port !== undefined ? `:${x.port}` : ''}` }], [x.subject], [x.issuer], [x.sans.join(', ')], [iso(x.notAfter)], days, [{ code: x.sha256 }]];
      }),
    },
  });
  return out;
}

function validationWords(r: ChangeReport): string {
  const { errors, warnings } = r.validation;
  return `${errors ? 'invalid' : 'valid'}: ${plural(errors, 'error')}, ${plural(warnings, 'warning')}`;
}

function validationBlocks(problems: ApiProblem[], total: number): Block[] {
  if (!problems.length) return [];
  const more = total > problems.length ? [[`… and ${total - problems.length} more`]] as Inline[] : [];
  return [
    { heading: 2, text: 'Problems' },
    { list: [...problems.map((p): Inline => [{ code: `${p.file}:${p.line}:${p.col}` }, ` ${p.severity}: ${p.path}: ${p.message}`]), ...more] },
  ];
}

function capacityBlocks(lines: string[] | undefined): Block[] {
  if (!lines) return [];
  const body: Block = lines.length ? { list: lines.map((l) => [l]) } : { para: ['Every service and target set keeps two or more members.'] };
  return [{ heading: 2, text: 'Capacity' }, body];
}

/** How many lines a unified diff adds and removes (its file headers left out). */
export function diffCounts(patch: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const l of patch.split('\n')) {
    if (l.startsWith('+') && !l.startsWith('+++')) added++;
    else if (l.startsWith('-') && !l.startsWith('---')) removed++;
  }
  return { added, removed };
}

/** What the last push from here changed, in a few words (after pushWords in the dialog). */
export function lastPushWords(a: ReportAppliance): string {
  const p = a.lastPush;
  if (!p?.patch) return '';
  const { added, removed } = diffCounts(p.patch);
  return `; the last push from here${p.confirm ? ` (${p.confirm})` : ''} changed ${plural(added, 'line')} added, ${removed} removed`;
}

/** What a push to the appliance would do now, in a few words (also the page's summary). */
export function pushWords(a: ReportAppliance): string {
  const live = a.live;
  if (a.errors.length) return 'refused before connecting';
  if (live.state === 'not-asked') return 'not asked (offline report)';
  if (live.state === 'unreachable') return 'could not be asked';
  if (live.refused) return 'cannot render onto the appliance\'s file';
  if (!live.changed) return 'no change: the appliance runs this workspace';
  const { added, removed } = diffCounts(live.patch);
  return `changes the file: ${plural(added, 'line')} added, ${removed} removed${live.conflicts.length ? `, ${plural(live.conflicts.length, 'conflict')}` : ''}`;
}

function applianceBlocks(a: ReportAppliance, generatedAt: number): Block[] {
  const live = a.live;
  const facts: [string, Inline][] = [
    ['Target', [{ code: a.target }, ' ', { code: a.configPath || '(no configPath)' }, ` — driver ${a.driver}, manage: ${a.manage}`]],
    ['A push now', [pushWords(a)]],
    ['File a push leaves', a.renderedSha256 ? [{ code: a.renderedSha256 }] : [a.manage === 'sections' ? 'merged onto the appliance\'s file: known once it is read' : 'not rendered']],
  ];
  if (live.state === 'checked' && live.remoteSha256) facts.push(['Running now', [{ code: live.remoteSha256 }]]);
  if (live.state === 'unreachable') facts.push(['Why not asked', [live.reason]]);
  if (live.state === 'not-asked') facts.push(['Appliance', [live.why]]);
  if (live.state === 'checked' && live.confirmBy) facts.push(['Commit-confirmed', [`a push waits for confirm: the appliance rolls it back at ${iso(live.confirmBy)}`]]);
  if (live.state === 'checked' && live.rolledBackAt !== undefined) facts.push(['Rolled back', [`the appliance's timer restored the previous file${live.rolledBackAt ? ` at ${iso(live.rolledBackAt)}` : ''}`]]);
  const p = a.lastPush;
  if (p) {
    const fate = p.confirm ? `, ${p.confirm}${p.settledAt ? ` ${iso(p.settledAt)}` : ''}` : '';
    const same = a.lastPushMatches === undefined ? '' : a.lastPushMatches ? ' — the file the workspace renders now' : ' — not the file the workspace renders now';
    facts.push(['Last push from here', [`${iso(p.at)}, ${p.kind === 'restore' ? 'restore, ' : ''}${p.outcome}${fate}, sha256 `, { code: p.sha256.slice(0, 16) }, same]]);
  } else facts.push(['Last push from here', ['none recorded on this machine']]);
  // Who took which member out, since when: a push keeps it so until someone sets it ready.
  for (const k of a.runtime ?? []) {
    facts.push([k.admin === 'drain' ? 'Drained' : 'In maintenance', [{ code: k.member }, ` since ${iso(k.since)} (${outForWords(generatedAt - k.since)}) by ${k.by}; pushes keep it until lbdesk ready`]]);
  }
  const out: Block[] = [{ heading: 3, text: a.name }, { facts }];
  if (a.errors.length) out.push({ list: a.errors.map((e) => [`error: ${e}`]) });
  if (a.warnings.length) out.push({ list: a.warnings.map((e) => [`warning: ${e}`]) });
  if (live.state === 'checked') {
    if (live.refused) out.push({ para: [`Cannot render onto the appliance's file: ${live.refused}`] });
    if (live.conflicts.length) out.push({ list: live.conflicts.map((c) => [`conflict: ${c}`]) });
    if (live.changed && live.patch) out.push({ diff: live.patch });
  }
  if (p?.patch) {
    const { added, removed } = diffCounts(p.patch);
    out.push({ para: [`The last push from here (${iso(p.at)}${p.confirm ? `, ${p.confirm}` : ''}) changed ${plural(added, 'line')} added, ${removed} removed:`] }, { diff: p.patch });
  }
  return out;
}

function labWords(lab: ReportLab): string {
  if (lab.state === 'stopped') return 'not running';
  if (lab.state === 'other-file') return `running another workspace (${lab.path ?? 'unknown'}): its state is not reported here`;
  const counts = Object.entries(lab.counts).map(([state, n]) => `${n} ${state}`).join(', ') || 'no members';
  const up = lab.uptimeMs;
  const mins = up === undefined ? '' : up < 60_000 ? ` for ${Math.round(up / 1000)} s` : ` for ${Math.round(up / 60_000)} min`;
  return `running this workspace${mins}: ${counts}; ${plural(lab.changes, 'state change')}`;
}

function labBlocks(lab: ReportLab): Block[] {
  if (lab.state !== 'running') return [];
  const words = labWords(lab);
  const out: Block[] = [{ heading: 2, text: 'Lab' }, { para: [`${words[0]!.toUpperCase()}${words.slice(1)}.`] }];
  if (lab.members.length) {
    out.push({ table: { head: ['Group', 'Server', 'State', 'Since', 'Why'], rows: lab.members.map((m) => [[m.group], [m.server], [m.state], [m.since ? iso(m.since) : ''], [m.reason]]) } });
  }
  if (lab.pools.length) {
    out.push({
      table: {
        head: ['Service / target set', 'Open', 'Total', 'Bytes in', 'Bytes out', 'Errors', 'Refused'],
        rows: lab.pools.map((p) => [[p.name], [String(p.active)], [String(p.total)], [String(p.bytesIn)], [String(p.bytesOut)], [String(p.errors)], [String(p.refused)]]),
      },
    });
  }
  return out;
}
