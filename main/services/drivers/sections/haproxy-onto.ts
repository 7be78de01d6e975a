// `manage: sections` for HAProxy: the workspace's services rendered onto the haproxy.cfg the
// appliance holds. Sections lbdesk models are edited in place (only what changed); sections it
// added itself are re-rendered whole; everything else stays byte for byte.
import type { Appliance, Service, Workspace } from '../../../../shared/model/schema';
import { workspaceSchema } from '../../../../shared/model/schema';
import { haproxyAddress } from '../format';
import { balanceOf, renderHaproxy } from '../haproxy';
import { haproxyCheck } from '../haproxy-checks';
import { selectIncluded, targetSetIncludeName } from '../include';
import { importHaproxy } from '../../import/haproxy-import';
import { parseHaproxy, sectionKey, type CfgSection } from '../../import/haproxy-parse';
import { ImportError, type SectionBinding } from '../../import/types';
import type { DriverProblem } from '../types';
import { attachedFrom, LineEdits, removeLines } from './edits';
import { markerHash, markerLine, sectionHash } from './markers';
import { indexWorkspace, lastDirective, membersOf, patchMembers, replaceCheck, setDirective, type MemberView, type WorkspaceIndex } from './haproxy-patch';
import { replaceWord } from './words';
import { formatDuration } from '../../../../shared/model/duration';
import type { OntoOptions, OntoResult } from './types';

/** The lines of a section lbdesk compares and hashes: header to last directive. */
function own(lines: string[], s: CfgSection): string[] {
  return lines.slice(s.header.index, lastDirective(s) + 1);
}

/** Comment lines glued to the header (no blank line between): they go with the section. */
function attached(lines: string[], s: CfgSection, floor: number): number {
  return attachedFrom(lines, s.header.index, floor);
}

const REF_KEYWORDS = new Set(['use_backend', 'default_backend']);

/** Backend names a section refers to (use_backend, default_backend, server … track B/S). */
function references(s: CfgSection): { name: string; line: number }[] {
  const out: { name: string; line: number }[] = [];
  for (const l of [s.header, ...s.body]) {
    const w = l.words.map((x) => x.text);
    if (REF_KEYWORDS.has(w[0] ?? '') && w[1]) out.push({ name: w[1], line: l.index });
    const track = w.indexOf('track');
    if (w[0] === 'server' && track > 0 && w[track + 1]?.includes('/')) out.push({ name: w[track + 1]!.split('/')[0]!, line: l.index });
  }
  return out;
}

export function haproxyOnto(workspace: Workspace, appliance: Appliance, current: string, opts: OntoOptions): OntoResult {
  const errors: DriverProblem[] = [];
  const warnings: DriverProblem[] = [];
  const conflicts: string[] = [];
  const subject = `appliance ${appliance.name}`;
  let cfg;
  let box;
  try {
    cfg = parseHaproxy(current, opts.file);
    box = importHaproxy(cfg, opts.file);
  } catch (e) {
    if (!(e instanceof ImportError)) throw e;
    return { text: '', errors: [{ subject, message: `the appliance's file cannot be read as haproxy.cfg: ${e.message}` }], warnings, conflicts };
  }
  const parsedBox = workspaceSchema.safeParse(box.workspace);
  if (!parsedBox.success) return { text: '', errors: [{ subject, message: `the appliance's file does not import cleanly: ${parsedBox.error.issues[0]?.message}` }], warnings, conflicts };
  const boxWorkspace = parsedBox.data;
  const lines = cfg.lines;
  const edits = new LineEdits(lines);
  const byStart = new Map(cfg.sections.map((s) => [s.header.index, s]));
  const marked = new Set(cfg.sections.filter((s) => markerHash(lines[s.header.index - 1]) !== undefined));
  const included = selectIncluded(workspace, appliance);
  errors.push(...included.errors);
  const want = indexWorkspace(workspace, included.services);
  const have = indexWorkspace(boxWorkspace);
  const removed = new Set<CfgSection>();

  // Conflicts: owned sections edited on the appliance since lbdesk wrote (marker) or saw (base) them.
  const ownedSections = new Set<CfgSection>([...marked, ...box.sections.map((b) => byStart.get(b.start)!)]);
  for (const s of marked) {
    if (markerHash(lines[s.header.index - 1]) !== sectionHash(own(lines, s))) conflicts.push(`${opts.file}:${s.header.index + 1}: ${sectionKey(s)} was edited on the appliance since lbdesk wrote it`);
  }
  if (opts.base !== undefined) baseConflicts(opts.base, opts.file, cfg.sections.filter((s) => ownedSections.has(s) && !marked.has(s)), lines, conflicts);

  // Imported sections (not lbdesk's own): edited in place.
  const boundServices = new Set<string>();
  for (const b of box.sections) {
    const s = byStart.get(b.start)!;
    if (marked.has(s)) continue;
    for (const x of b.services) boundServices.add(x.name);
    patchSection(want, have, b, s, edits, removed, errors);
  }

  // lbdesk's own sections: rendered afresh for services and target sets no imported section holds.
  const fresh = freshSections(workspace, appliance, included.services.filter((s) => !boundServices.has(s.name)), included.targetSets.map((t) => targetSetIncludeName(t.number)), errors, warnings);
  const existing = new Map(cfg.sections.map((s) => [sectionKey(s), s]));
  const append: string[][] = [];
  for (const [key, block] of fresh) {
    const s = existing.get(key);
    if (s && !marked.has(s)) {
      errors.push({ subject, message: `${key} (line ${s.header.index + 1}) is not lbdesk's: the workspace's section of that name cannot be added` });
      continue;
    }
    const text = [markerLine(block.section), ...block.section];
    if (!s) {
      append.push([...block.comments, ...text]);
      continue;
    }
    const now = [lines[s.header.index - 1]!, ...own(lines, s)].map((l) => l.replace(/\r$/, ''));
    if (now.join('\n') !== text.join('\n')) {
      edits.remove(s.header.index - 1, lastDirective(s) + 1);
      edits.insertBefore(s.header.index - 1, text);
    }
  }
  for (const s of marked) if (!fresh.has(sectionKey(s))) removed.add(s);
  for (const s of removed) removeLines(edits, attachedFrom(lines, marked.has(s) ? s.header.index - 1 : s.header.index, cfg.preamble - 1), lastDirective(s) + 1);
  checkReferences(cfg.sections.filter((s) => !ownedSections.has(s)), removed, opts.file, subject, errors);
  if (append.length) {
    let last = lines.length - 1;
    while (last > 0 && lines[last] === '') last--;
    edits.insertAfter(last, append.flatMap((block) => ['', ...block]));
  }
  if (conflicts.length && !opts.force) {
    errors.push({ subject, message: `${conflicts.length} owned section${conflicts.length === 1 ? '' : 's'} edited on the appliance (pull to accept the edit, or override with --force)` });
  }
  return { text: errors.length ? '' : edits.apply(), errors, warnings, conflicts };
}

function baseConflicts(base: string, file: string, owned: CfgSection[], lines: string[], conflicts: string[]): void {
  let baseCfg;
  try {
    baseCfg = parseHaproxy(base, file);
  } catch {
    return;
  }
  const before = new Map(baseCfg.sections.map((s) => [sectionKey(s), own(baseCfg.lines, s).join('\n')]));
  for (const s of owned) {
    const was = before.get(sectionKey(s));
    if (was === undefined) conflicts.push(`${file}:${s.header.index + 1}: ${sectionKey(s)} was added on the appliance since lbdesk's last pull or push`);
    else if (was !== own(lines, s).join('\n')) conflicts.push(`${file}:${s.header.index + 1}: ${sectionKey(s)} was edited on the appliance since lbdesk's last pull or push`);
  }
}

function checkReferences(kept: CfgSection[], removed: Set<CfgSection>, file: string, subject: string, errors: DriverProblem[]): void {
  const gone = new Map([...removed].filter((s) => s.kind === 'backend' || s.kind === 'listen').map((s) => [s.name, s]));
  for (const s of kept) {
    for (const r of references(s)) {
      const target = gone.get(r.name);
      if (target) errors.push({ subject, message: `${file}:${r.line + 1}: ${sectionKey(s)} (kept as written) uses ${sectionKey(target)}, which the workspace no longer has: removing or renaming it would break that section` });
    }
  }
}

function patchSection(ix: WorkspaceIndex, box: WorkspaceIndex, b: SectionBinding, s: CfgSection, edits: LineEdits, removed: Set<CfgSection>, errors: DriverProblem[]): void {
  const wantGroup = b.group ? ix.groups.get(b.group) : undefined;
  const boxGroup = b.group ? box.groups.get(b.group) : undefined;
  const wantServices = b.services.map((x) => ix.services.get(x.name));
  const groupGone = b.group !== undefined && !wantGroup;
  const servicesGone = b.services.length > 0 && wantServices.every((x) => !x);
  if ((b.group === undefined || groupGone) && (b.services.length === 0 || servicesGone)) {
    removed.add(s);
    return;
  }
  if (wantGroup && boxGroup) {
    const boxMembers = membersOf(box, boxGroup);
    const want: MemberView[] = membersOf(ix, wantGroup);
    if (!sameJson(boxGroup.healthCheck, wantGroup.healthCheck)) {
      const check = haproxyCheck(`group ${wantGroup.name}`, wantGroup.healthCheck, want.map((m) => ({ ...m, check: { type: wantGroup.healthCheck.type === 'auto' ? 'tcp' : wantGroup.healthCheck.type } })) as never, 0);
      replaceCheck(edits, s, check.backendLines.filter((l) => !l.startsWith('timeout connect')), b.members, wantGroup.healthCheck, boxMembers);
    } else {
      const bt = boxMembers[0]?.timers.timeout;
      const wt = want[0]?.timers.timeout;
      if (bt !== undefined && wt !== undefined && bt !== wt) setDirective(edits, s, (w) => w[0] === 'timeout' && w[1] === 'check', [`timeout check ${formatDuration(wt)}`]);
    }
    patchMembers(edits, s, b.members, boxMembers, want, wantGroup.healthCheck);
    // Balance and persistence belong to the services that use the group.
    const boxSvc = box.serviceOfGroup.get(boxGroup.name);
    const wantSvc = ix.serviceOfGroup.get(wantGroup.name);
    if (boxSvc && wantSvc) {
      if (boxSvc.algorithm !== wantSvc.algorithm) setDirective(edits, s, (w) => w[0] === 'balance' || w[0] === 'hash-type' || (w[0] === 'tcp-request' && w.join(' ').includes('txn.lbdesk_sport')), balanceOf(wantSvc.algorithm).lines);
      if (!sameJson(boxSvc.persistence, wantSvc.persistence)) {
        const lines = wantSvc.persistence.type === 'client-ip'
          ? [`stick-table type ${wantSvc.address.includes(':') ? 'ipv6' : 'ip'} size 100k expire ${formatDuration(wantSvc.persistence.timeout)}`, 'stick on src']
          : [];
        setDirective(edits, s, (w) => w[0] === 'stick-table' || (w[0] === 'stick' && w[1] === 'on'), lines);
      }
    }
  }
  b.services.forEach((x, i) => {
    const want = wantServices[i];
    const have = box.services.get(x.name);
    if (!want) {
      edits.replace(x.line, []);
      return;
    }
    if (!have) return;
    if (want.address !== have.address || want.port !== have.port) edits.replace(x.line, [replaceWord(edits.current(x.line)!, 1, haproxyAddress(want.address, want.port))]);
    if (i === 0 && want.enabled !== have.enabled) {
      if (want.enabled) {
        const line = s.body.find((l) => l.first === 'disabled');
        if (line) edits.replace(line.index, []);
      } else setDirective(edits, s, (w) => w[0] === 'disabled', ['disabled']);
    }
    if (i === 0 && want.idleTimeout !== have.idleTimeout) setDirective(edits, s, (w) => w[0] === 'timeout' && w[1] === 'client', [`timeout client ${formatDuration(want.idleTimeout)}`]);
    if (i === 0 && want.group !== have.group && s.kind === 'frontend') {
      errors.push({ subject: `service ${want.name}`, message: `moved from group ${have.group} to ${want.group}: change default_backend on the appliance by hand, or add the service anew` });
    }
  });
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

interface FreshSection {
  comments: string[];
  section: string[];
}

/** Frontend/backend pairs the driver renders for services and target sets no imported section holds. */
function freshSections(workspace: Workspace, appliance: Appliance, services: Service[], targetSets: string[], errors: DriverProblem[], warnings: DriverProblem[]): Map<string, FreshSection> {
  const out = new Map<string, FreshSection>();
  const include = [...services.map((s) => s.name), ...targetSets];
  if (!include.length) return out;
  const r = renderHaproxy(workspace, { ...appliance, include });
  errors.push(...r.errors);
  warnings.push(...r.warnings);
  if (r.errors.length) return out;
  const cfg = parseHaproxy(r.text, 'rendered');
  for (const s of cfg.sections) {
    if (s.kind !== 'frontend' && s.kind !== 'backend') continue;
    const first = attached(cfg.lines, s, -1);
    out.set(sectionKey(s), { comments: cfg.lines.slice(first, s.header.index), section: own(cfg.lines, s) });
  }
  return out;
}

