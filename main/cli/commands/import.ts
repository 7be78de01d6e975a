// `lbdesk import CONFIG --driver haproxy|keepalived [--out WS] [--appliance NAME] [--json]`: a new
// workspace from a config an appliance runs. `lbdesk import WS --appliance NAME`: pull NAME's
// config over SSH and add what lbdesk models to WS (a comment-preserving edit).
import type { Command } from 'commander';
import { realpathSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import { decodeConfig, importConfig, mergeIntoWorkspace, newWorkspaceText, reportLine, workspaceProblems, ImportError, MAX_IMPORT_BYTES, type Imported, type ReportItem } from '../../services/import';
import { syncDataDir } from '../../services/sync';
import { availableDrivers, getDriver } from '../../services/drivers';
import type { DriverName, Workspace } from '../../../shared/model/schema';
import { FILE_IMPORT_DRIVERS, type FileImportDriver } from '../../../shared/model/drivers';
import { loadWorkspace, saveWorkspaceText } from '../../services/workspace';
import { about, CliError } from '../errors';
import { writeOut } from '../out';
import { prepareForSync, sshOptionsFrom, withSshOptions, type SshCliOptions } from '../sync-options';

interface ImportOptions extends SshCliOptions {
  driver?: string;
  out?: string;
  json?: boolean;
}

async function readInput(file: string): Promise<Uint8Array> {
  if (file === '-') {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of process.stdin) {
      size += (c as Buffer).length;
      // Stop reading early: the importer names the size, nothing more is needed.
      if (size > MAX_IMPORT_BYTES + 1) return Buffer.alloc(size);
      chunks.push(c as Buffer);
    }
    return Buffer.concat(chunks);
  }
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new CliError(`${file} is not a file`, 2);
    if (info.size > MAX_IMPORT_BYTES) return Buffer.alloc(info.size);
    return await readFile(file);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`, 2);
  }
}

function report(items: ReportItem[], json: { workspace: string | null; driver: string } | undefined, extra: Record<string, unknown> = {}): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ ...json, items: items.map((i) => ({ file: i.file, line: i.line, section: i.section, outcome: i.outcome, detail: i.detail })), ...extra }, null, 2)}\n`);
    return;
  }
  for (const i of items) process.stderr.write(`${reportLine(i)}\n`);
  const n = (o: string) => items.filter((i) => i.outcome === o).length;
  process.stderr.write(`lbdesk: ${n('imported')} imported, ${n('approximated')} approximated, ${n('kept')} kept on the appliance\n`);
}

function run<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ImportError) throw new CliError(e.message, 1);
    throw e;
  }
}

/** Drivers whose own folder reads their config (the vendor dialects), besides FILE_IMPORT_DRIVERS. */
const vendorImporters = () => availableDrivers().filter((d) => getDriver(d).importer);

/** `from`: a file (its real path, includes followed) or, without, a config pulled from the box into `existing`. */
function importWith(driver: DriverName, bytes: Uint8Array, file: string, from: { realPath?: string; existing?: Workspace }): Imported {
  const own = getDriver(driver).importer;
  if (own) return { ...own(decodeConfig(bytes, file), file, { taken: { servers: from.existing?.servers.map((s) => s.name) ?? [] } }), fromIncludes: [], included: [] };
  return importConfig({ bytes, file, driver: driver as FileImportDriver, realPath: from.realPath, existing: from.existing, includes: from.existing === undefined });
}

async function fromFile(config: string, o: ImportOptions): Promise<void> {
  const known: string[] = [...FILE_IMPORT_DRIVERS, ...vendorImporters()];
  if (!known.includes(o.driver ?? '')) throw new CliError(`--driver must be ${known.slice(0, -1).join(', ')} or ${known[known.length - 1]} (got "${o.driver}")`, 2);
  const driver = o.driver as DriverName;
  if (o.appliance && o.appliance.length > 1) throw new CliError('--appliance takes one name', 2);
  if (o.out) {
    const exists = await stat(o.out).then(() => true, () => false);
    if (exists) throw new CliError(`refused: ${o.out} exists; import into an existing workspace with lbdesk import ${o.out} --appliance NAME`, 2);
  }
  const bytes = await readInput(config);
  const shown = config === '-' ? '<stdin>' : config;
  const realPath = config === '-' ? undefined : realpathSync(config);
  const r: Imported = run(() => importWith(driver, bytes, shown, { realPath }));
  const name = o.appliance?.[0] ?? 'imported';
  const workspaceName = o.out ? basename(o.out, extname(o.out)) : 'imported';
  const text = newWorkspaceText(r, { name, driver, workspaceName, source: shown });
  const problems = workspaceProblems(text, o.out ?? 'imported.yaml');
  if (problems.length) {
    for (const p of problems) process.stderr.write(`lbdesk: ${p}\n`);
    throw new CliError(`the imported workspace does not validate (a bug in the importer: please report it with ${shown}); nothing written`, 1);
  }
  if (o.out) await writeOut(o.out, text, 1);
  report(r.items, o.json ? { workspace: o.out ?? null, driver } : undefined, o.json && !o.out ? { yaml: text } : {});
  if (!o.out && !o.json) process.stdout.write(text);
  if (o.out && !o.json) process.stderr.write(`lbdesk: wrote ${o.out}: ${r.workspace.servers.length} servers, ${r.workspace.groups.length} groups, ${r.workspace.services.length} services; appliance ${name} (manage: sections)\n`);
}

async function fromAppliance(file: string, o: ImportOptions): Promise<void> {
  if (!o.appliance?.length) throw new CliError('give --driver (importing a config file) or --appliance (importing from an appliance into this workspace)', 2);
  const { path, prepared } = await prepareForSync(file, o, false);
  const p = prepared[0]!;
  const driver = p.appliance.driver;
  const known: string[] = [...FILE_IMPORT_DRIVERS, ...vendorImporters()];
  if (!known.includes(driver)) throw new CliError(`appliance ${p.appliance.name} has driver ${driver}: import reads ${known.join(', ')} configs`, 2);
  let data: Buffer;
  try {
    data = (await p.pull({ ...sshOptionsFrom(o), dataDir: syncDataDir() })).data;
  } catch (err) {
    throw new CliError(about(p.appliance.name, (err as Error).message), 1);
  }
  const shown = `${p.appliance.name}:${p.where}`;
  // The one loader, again after the pull: the merge edits the text as it is now.
  const loaded = await loadWorkspace(path, { shown: file });
  if (!loaded.ok) throw new CliError(loaded.message, 1);
  const workspace = loaded.workspace;
  const text = loaded.text;
  const r: Imported = run(() => importWith(driver, data, shown, { existing: workspace }));
  const merged = mergeIntoWorkspace(text, workspace, r, p.appliance.name, shown);
  const problems = workspaceProblems(merged.text, path);
  if (problems.length) {
    for (const x of problems) process.stderr.write(`lbdesk: ${x}\n`);
    throw new CliError(`the merged workspace does not validate; ${file} left as it was`, 1);
  }
  await saveWorkspaceText(path, merged.text);
  const items = [...r.items, ...merged.skipped].sort((a, b) => a.line - b.line);
  report(items, o.json ? { workspace: file, driver } : undefined);
  if (!o.json) process.stderr.write(`lbdesk: ${file} updated (previous version kept as ${basename(path)}.bak); appliance ${p.appliance.name} is manage: sections\n`);
}

export function register(program: Command): void {
  const cmd = program
    .command('import')
    .description("read a config an appliance runs into a new workspace (CONFIG --driver), or into WS from appliance NAME over SSH (WS --appliance)")
    .argument('<config-or-workspace>', 'haproxy.cfg / keepalived.conf (- for stdin), or the workspace to add to')
    .option('--driver <driver>', 'haproxy, keepalived, adx, a10, netscaler, f5 or pingdirectory: CONFIG is a file of that format (adx, a10: the box\'s show running-config; netscaler: its ns.conf or show ns runningConfig; f5: bigip.conf or tmsh show running-config; pingdirectory: a dsconfig batch file or config-diff output)')
    .option('--out <workspace>', 'write the new workspace here (atomically; an existing file is refused)');
  withSshOptions(cmd, false)
    .option('--json', 'the report as one JSON document on stdout')
    .action(async (arg: string, o: ImportOptions) => {
      if (o.driver !== undefined) await fromFile(arg, o);
      else await fromAppliance(resolve(arg), o);
    });
}
