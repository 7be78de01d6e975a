// Change reports (`lbdesk report`, the Appliances view's "Change report"): gathered once,
// written as HTML and Markdown beside the workspace, in a `reports` folder.
import { access, mkdir } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import type { ChangeReport, ReportExport } from '../../../shared/api/report';
import { writeFileAtomic } from '../workspace/atomic';
import { lastPushWords, pushWords } from './blocks';
import { reportHtml, reportMarkdown } from './write';

export { collectReport, UnknownAppliances, type CollectOptions } from './collect';
export { reportHtml, reportMarkdown } from './write';

/** `site-a-change-20261202-003105Z`: sorts by time, one per second. */
export function reportName(workspacePath: string, at: number): string {
  const stamp = new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '').replace('T', '-');
  return `${basename(workspacePath, extname(workspacePath))}-change-${stamp}`;
}

/** The workspace and whether it validates: `site-a: valid`. */
function reportHeadline(r: ChangeReport): string {
  const n = r.validation.errors;
  return `${r.workspace.name || basename(r.workspace.path)}: ${n ? `invalid (${n} error${n === 1 ? '' : 's'})` : 'valid'}`;
}

/** One line for the CLI: the headline, then each appliance. */
export function reportSummary(r: ChangeReport): string {
  return [reportHeadline(r), ...r.appliances.map((a) => `${a.name} ${pushWords(a)}`)].join('; ');
}

const exists = (p: string) => access(p).then(() => true, () => false);

/** Writes both files into `dir` (default: `reports/` beside the workspace); never over an existing one. */
export async function writeReport(r: ChangeReport, dir = join(dirname(r.workspace.path), 'reports')): Promise<ReportExport> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  let base = join(dir, reportName(r.workspace.path, r.at));
  // Two reports in one second: the second gets a number, the first stays.
  for (let n = 2; await exists(`${base}.html`) || await exists(`${base}.md`); n++) base = join(dir, `${reportName(r.workspace.path, r.at)}-${n}`);
  const html = reportHtml(r);
  const markdown = reportMarkdown(r);
  await writeFileAtomic(`${base}.html`, html);
  await writeFileAtomic(`${base}.md`, markdown);
  const appliances = r.appliances.map((a) => ({ name: a.name, says: `${pushWords(a)}${lastPushWords(a)}`, ok: !a.errors.length && a.live.state === 'checked' && !a.live.refused && !a.live.conflicts.length }));
  return { html, markdown, htmlPath: `${base}.html`, markdownPath: `${base}.md`, headline: reportHeadline(r), summary: reportSummary(r), appliances };
}
