// Contract handlers for import: the same importer and merge as `lbdesk import`, with the report
// as rows and the source text the rows point into (secrets masked, line numbers kept).
import { stat } from 'node:fs/promises';
import { basename, extname, normalize } from 'node:path';
import { ApiError } from '../../../shared/api/contract';
import type { ImportApplianceResult, ImportDriver, ImportFileResult, ImportReport, ImportRow } from '../../../shared/api/import';
import { workspaceSchema, type DriverName, type Workspace } from '../../../shared/model/schema';
import { driversWhere, FILE_IMPORT_DRIVERS, isFileImport } from '../../../shared/model/drivers';
import { openAppliance } from '../sync/appliance';
import { applyMerge, decodeConfig, detectDriver, importConfig, newWorkspaceText, planMerge, workspaceProblems, ImportError, MAX_IMPORT_BYTES, type Imported, type ReportItem } from '../import';
import { shownConfig } from '../sync/commands/redact';
import { getDriver } from '../drivers';
import { checkWritableWorkspace, readConfigFile } from '../files/guard';
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

/** The source texts the rows name: the main config and the included files, as the importer read them. */
function sources(main: { file: string; text: string }, r: Imported): ImportReport['sources'] {
  return [main, ...r.included].map((f) => ({ file: f.file, text: shownConfig(f.text) }));
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

/** Every driver with an importer (shared/model/drivers.ts), in DRIVERS order: haproxy and keepalived first. */
function importDrivers(): ImportDriver[] {
  return driversWhere((f) => f.importer !== false);
}

/** A vendor dialect reads its config in its own folder; haproxy and keepalived follow includes. */
function importWith(driver: ImportDriver, bytes: Uint8Array, file: string): Imported {
  const d = driver as DriverName;
  if (isFileImport(d)) return importConfig({ bytes, file, driver: d, realPath: file });
  return { ...getDriver(d).importer!(decodeConfig(bytes, file), file, { taken: { servers: [] } }), fromIncludes: [], included: [] };
}

export function importHandlers(deps: ApplianceDeps): AreaHandlers<'import'> {
  const { ssh, prepared } = applianceAccess(deps);
  return {
    'import.detect': async ({ config }) => {
      const clean = normalize(config);
      const head = readConfigFile(config, MAX_IMPORT_BYTES).subarray(0, 64 * 1024);
      return { driver: detectDriver(head, basename(clean)) ?? null };
    },
    'import.drivers': async () => ({ drivers: importDrivers().map((d) => ({ name: d, ...getDriver(d as DriverName).defaults, fromBox: isFileImport(d as DriverName) })) }),
    'import.file': async ({ config, driver, out, appliance }): Promise<ImportFileResult> => {
      if (!importDrivers().includes(driver)) throw new ApiError('bad-args', `driver ${driver} has no importer: ${importDrivers().join(', ')}`);
      const bytes = readConfigFile(config, MAX_IMPORT_BYTES);
      const clean = normalize(config);
      const target = await checkWritableWorkspace(out);
      if (await stat(target).then(() => true, () => false)) throw new ApiError('conflict', `${target} exists: choose a new file for the imported workspace (or import into that workspace from its appliance)`);
      const r = attempt(() => importWith(driver, bytes, clean));
      // Nothing is shown of a file that is not a config of that driver (the page may name any file).
      if (r instanceof ImportError) {
        const report = refused(driver, r, true);
        return { ...report, summary: `${report.error}: nothing written` };
      }
      const name = appliance ?? 'imported';
      const text = newWorkspaceText(r, { name, driver: driver as DriverName, workspaceName: basename(target, extname(target)), source: clean });
      return writeImported(target, text, r, driver, { file: clean, text: new TextDecoder().decode(bytes) });
    },
    'import.box': async ({ box, driver, out, appliance }): Promise<ImportFileResult> => {
      const target = await checkWritableWorkspace(out);
      if (await stat(target).then(() => true, () => false)) throw new ApiError('conflict', `${target} exists: choose a new file for the imported workspace (or import into that workspace from its appliance)`);
      const name = appliance ?? 'imported';
      // The box as a one-appliance workspace: the pull is the one every appliance of a workspace has.
      const workspace = workspaceSchema.parse({ lbdesk: 1, name: basename(target, extname(target)), appliances: [{ name, driver, ...box }] });
      const link = openAppliance(workspace, workspace.appliances[0]!, target);
      const pulled = await link.pull({ ...ssh(), dataDir: deps.dataDir });
      const shown = `${name}:${pulled.where}`;
      const r = attempt(() => importConfig({ bytes: pulled.data, file: shown, driver, includes: false }));
      if (r instanceof ImportError) {
        const report = refused(driver, r, false);
        return { ...report, summary: `${report.error}: nothing written` };
      }
      const text = newWorkspaceText(r, { name, driver, configPath: box.configPath, box, workspaceName: workspace.name, source: `${box.user ? `${box.user}@` : ''}${box.host}:${pulled.where}` });
      return writeImported(target, text, r, driver, { file: shown, text: new TextDecoder().decode(pulled.data) });
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

/** The new workspace written once it validates, and the report of what it holds. */
async function writeImported(target: string, text: string, r: Imported, driver: ImportDriver, main: { file: string; text: string }): Promise<ImportFileResult> {
  const problems = workspaceProblems(text, target);
  if (problems.length) throw new ApiError('failed', `the imported workspace does not validate (a bug in the importer: please report it with the config); nothing written: ${problems[0]}`);
  await writeFileAtomic(target, text);
  const info = await stat(target);
  const rows = r.items.map(row);
  const summary = `${many(r.workspace.servers.length, 'server')}, ${many(r.workspace.groups.length, 'group')}, ${many(r.workspace.services.length, 'service')}; ${counts(rows)}`;
  return { driver, rows, sources: sources(main, r), workspace: { path: target, mtimeMs: info.mtimeMs }, summary };
}

/** `import.appliance` once the appliance's config is pulled: the merge as edits, nothing written. */
export function mergeFromAppliance(workspace: Workspace, text: string, path: string, appliance: string, pulled: { data: Uint8Array; where: string }): ImportApplianceResult {
  const a = workspace.appliances.find((x) => x.name === appliance)!;
  const driver = a.driver;
  if (!isFileImport(driver)) throw new ApiError('unsupported', `appliance ${appliance} has driver ${driver}: import reads ${FILE_IMPORT_DRIVERS.join(' and ')} configs`);
  const shown = `${appliance}:${pulled.where}`;
  const r: Imported | ImportError = attempt(() => importConfig({ bytes: pulled.data, file: shown, driver, existing: workspace, includes: false }));
  const source = (): ImportReport['sources'] => {
    try {
      return [{ file: shown, text: shownConfig(new TextDecoder('utf-8', { fatal: true }).decode(pulled.data)) }];
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
