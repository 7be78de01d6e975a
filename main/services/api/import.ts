// Contract handlers for import: the same importer and merge as `lbdesk import`, with the report
// as rows and the source text the rows point into (secrets masked, line numbers kept).
import { readFile, realpath, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, normalize, sep } from 'node:path';
import { ApiError } from '../../../shared/api/contract';
import type { ImportApplianceResult, ImportDriver, ImportFileResult, ImportReport, ImportRow } from '../../../shared/api/import';
import type { Workspace } from '../../../shared/model/schema';
import { applyMerge, detectDriver, importConfig, newWorkspaceText, planMerge, workspaceProblems, ImportError, MAX_IMPORT_BYTES, type Imported, type ReportItem } from '../import';
import { redact } from '../sync/vendor/redact';
import { checkWritableWorkspace } from '../files/guard';
import { writeFileAtomic } from '../workspace/atomic';
import type { AreaHandlers } from './dispatch';
import { applianceAccess, type ApplianceDeps } from './appliances';
import { loadSource } from '../workspace/source';

const row = (i: ReportItem): ImportRow => ({ kind: i.outcome, file: i.file, line: i.line, what: i.section, why: i.detail });

/** `1 service`, `3 services`. */
const many = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function counts(rows: ImportRow[]): string {
  const n = (k: string) => rows.filter((r) => r.kind === k).length;
  return `${n('imported')} imported, ${n('approximated')} approximated, ${n('kept')} kept on the appliance`;
}

/**
 * A config file the page names: absolute, a regular file, not in a hidden folder (~/.ssh and the
 * like hold keys, never a config to import), at most the importer's limit.
 */
async function checkConfigPath(path: string): Promise<string> {
  if (path.includes('\0')) throw new ApiError('refused', 'a path may not contain NUL bytes');
  if (!isAbsolute(path)) throw new ApiError('refused', `not an absolute path: ${path}`);
  const clean = normalize(path);
  const hidden = (p: string) => p.split(sep).some((part) => part.startsWith('.') && part.length > 1);
  const real = await realpath(clean).catch(() => undefined);
  if (!real) throw new ApiError('not-found', `no such file: ${clean}`);
  // A link from a plain folder into a hidden one is refused too.
  if (hidden(clean) || hidden(real)) {
    throw new ApiError('refused', `${clean} is in a hidden folder or is a hidden file: copy the config somewhere else to import it`);
  }
  const info = await stat(clean);
  if (!info.isFile()) throw new ApiError('refused', `not a regular file: ${clean}`);
  if (info.size > MAX_IMPORT_BYTES) throw new ApiError('refused', `${clean}:1: ${(info.size / 1024 / 1024).toFixed(1)} MiB is too large to be a config (import reads at most ${MAX_IMPORT_BYTES / 1024 / 1024} MiB)`);
  return clean;
}

/** The source texts the rows name: the main config, and included files read again. */
async function sources(main: { file: string; text: string }, rows: ImportRow[]): Promise<ImportReport['sources']> {
  const out = [{ file: main.file, text: redact(main.text) }];
  for (const file of new Set(rows.map((r) => r.file))) {
    if (file === main.file) continue;
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text !== undefined) out.push({ file, text: redact(text) });
  }
  return out;
}

/** `quiet`: the file may be any file the page named, so the words it quotes are left out. */
function refused(driver: ImportDriver, e: ImportError, quiet: boolean): ImportReport {
  const why = quiet ? e.reason.replace(/"[^"\n]*"/g, 'the first word') : e.reason;
  return { driver, error: `${e.file}:${e.line}: ${why}`, rows: [{ kind: 'error', file: e.file, line: e.line, what: 'refused', why }], sources: [] };
}

function attempt<T>(fn: () => T): T | ImportError {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ImportError) return e;
    throw e;
  }
}

export function importHandlers(deps: ApplianceDeps): AreaHandlers<'import'> {
  const { ssh, prepared } = applianceAccess(deps);
  return {
    'import.detect': async ({ config }) => {
      const clean = await checkConfigPath(config);
      const head = (await readFile(clean)).subarray(0, 64 * 1024);
      return { driver: detectDriver(head, basename(clean)) ?? null };
    },
    'import.file': async ({ config, driver, out, appliance }): Promise<ImportFileResult> => {
      const clean = await checkConfigPath(config);
      const target = await checkWritableWorkspace(out);
      if (await stat(target).then(() => true, () => false)) throw new ApiError('conflict', `${target} exists: choose a new file for the imported workspace (or import into that workspace from its appliance)`);
      const bytes = await readFile(clean);
      const r = attempt(() => importConfig({ bytes, file: clean, driver, realPath: clean }));
      // Nothing is shown of a file that is not a config of that driver (the page may name any file).
      if (r instanceof ImportError) {
        const report = refused(driver, r, true);
        return { ...report, summary: `${report.error}: nothing written` };
      }
      const name = appliance ?? 'imported';
      const text = newWorkspaceText(r, { name, driver, workspaceName: basename(target, extname(target)), source: clean });
      const problems = workspaceProblems(text, target);
      if (problems.length) throw new ApiError('failed', `the imported workspace does not validate (a bug in the importer: please report it with the config); nothing written: ${problems[0]}`);
      await writeFileAtomic(target, text);
      const info = await stat(target);
      const rows = r.items.map(row);
      const summary = `${many(r.workspace.servers.length, 'server')}, ${many(r.workspace.groups.length, 'group')}, ${many(r.workspace.services.length, 'service')}; ${counts(rows)}`;
      return { driver, rows, sources: await sources({ file: clean, text: new TextDecoder().decode(bytes) }, rows), workspace: { path: target, mtimeMs: info.mtimeMs }, summary };
    },
    'import.appliance': async ({ appliance, ...src }) => {
      const p = await prepared(src, appliance);
      const pulled = await p.pull({ ...ssh(), dataDir: deps.dataDir });
      // Loaded again after the pull: the edits are planned on the workspace as it is now.
      const { workspace, text, path } = await loadSource(src);
      return mergeFromAppliance(workspace, text, path, appliance, pulled);
    },
  };
}

/** `import.appliance` once the appliance's config is pulled: the merge as edits, nothing written. */
export function mergeFromAppliance(workspace: Workspace, text: string, path: string, appliance: string, pulled: { data: Uint8Array; where: string }): ImportApplianceResult {
  const a = workspace.appliances.find((x) => x.name === appliance)!;
  const driver = a.driver;
  if (driver !== 'haproxy' && driver !== 'keepalived') throw new ApiError('unsupported', `appliance ${appliance} has driver ${driver}: import reads haproxy and keepalived configs`);
  const shown = `${appliance}:${pulled.where}`;
  const r: Imported | ImportError = attempt(() => importConfig({ bytes: pulled.data, file: shown, driver, existing: workspace, includes: false }));
  const source = (): ImportReport['sources'] => {
    try {
      return [{ file: shown, text: redact(new TextDecoder('utf-8', { fatal: true }).decode(pulled.data)) }];
    } catch {
      return [];
    }
  };
  if (r instanceof ImportError) return { ...refused(driver, r, false), sources: source(), appliance, edits: [], summary: `${r.message}: the workspace was not changed` };
  const plan = planMerge(workspace, r, appliance, shown);
  const problems = workspaceProblems(applyMerge(text, plan.edits), path);
  if (problems.length) throw new ApiError('refused', `the merged workspace would not validate; the workspace was not changed: ${problems[0]}`);
  const rows = [...r.items, ...plan.skipped].sort((x, y) => x.line - y.line).map(row);
  const added = (list: string) => plan.edits.filter((e) => e.op === 'add' && e.list[0] === list).length;
  const summary = `${many(added('servers'), 'server')}, ${many(added('groups'), 'group')}, ${many(added('services'), 'service')} added; ${counts(rows)}`;
  return { driver, rows, sources: source(), appliance, edits: plan.edits, summary };
}
