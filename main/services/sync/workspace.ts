// The thin layer between a workspace and the sync core: render an appliance's config with its
// driver and describe where it goes, how it is validated, reloaded and verified.
import { isAbsolute } from 'node:path';
import type { Appliance, Workspace } from '../../../shared/model/schema';
import { getDriver, renderForAppliance, selectIncluded, type ApplianceRender } from '../drivers';
import { cliTarget, type CliTarget } from '../vendor/target';
import type { OntoOutcome, SyncTarget, VerifyTarget } from './target';
import { renderOnto } from '../drivers/sections';

export interface PreparedAppliance {
  appliance: Appliance;
  render: ApplianceRender;
  target: SyncTarget;
  /** Why this appliance cannot be pushed (render errors, bad paths), one line each. */
  errors: string[];
  /** `driver: cli`: push, pull and diff go through main/services/vendor with this, not `target`. */
  cli?: CliTarget;
}

/** A wildcard bind is checked on loopback: that is where the appliance itself can reach it. */
function probeAddress(address: string): string {
  if (address === '0.0.0.0') return '127.0.0.1';
  if (address === '::') return '::1';
  return address;
}

/**
 * VIPs to connect to after a reload: the appliance's enabled TCP services. Not for keepalived,
 * whose VIPs live on whichever node is master (the peer may hold them).
 */
export function verifyTargets(ws: Workspace, appliance: Appliance): VerifyTarget[] {
  if (appliance.driver !== 'haproxy' && appliance.driver !== 'lbdesk') return [];
  const included = selectIncluded(ws, appliance);
  return included.services
    .filter((s) => s.enabled && s.protocol === 'tcp')
    .map((s) => ({ address: probeAddress(s.address), port: s.port }));
}

export function prepareAppliance(ws: Workspace, appliance: Appliance, workspacePath: string): PreparedAppliance {
  const render = renderForAppliance(ws, appliance, { workspacePath });
  // manage: sections renders onto the live file at push time, with its own errors then; the
  // whole-file render (e.g. "nothing to serve" when every listener is hand-written) does not apply.
  const sections = appliance.manage === 'sections' && (appliance.driver === 'haproxy' || appliance.driver === 'keepalived');
  const errors = sections ? [] : render.errors.map((e) => `${e.subject}: ${e.message}`);
  // A vendor CLI has no config file to replace and no reload command: its commands are the config.
  const cli = appliance.driver === 'cli' ? cliTarget(appliance, workspacePath) : undefined;
  if (!cli) {
    if (!render.configPath) errors.push(`appliance ${appliance.name}: no configPath`);
    else if (!isAbsolute(render.configPath)) errors.push(`appliance ${appliance.name}: configPath must be absolute (${render.configPath})`);
    if (!render.reloadCommand) errors.push(`appliance ${appliance.name}: no reloadCommand`);
  }
  let volatile: RegExp[] = [];
  try { volatile = getDriver(appliance.driver).volatile; } catch { /* reported by render */ }
  const target: SyncTarget = {
    appliance: appliance.name,
    endpoint: {
      appliance: appliance.name,
      host: appliance.host,
      port: appliance.port,
      user: appliance.user,
      auth: appliance.auth,
      keyFile: appliance.keyFile,
      hostKey: appliance.hostKey,
      legacyAlgorithms: appliance.legacyAlgorithms,
    },
    configPath: render.configPath,
    validateCommand: render.validateCommand || undefined,
    reloadCommand: render.reloadCommand,
    verify: verifyTargets(ws, appliance),
    volatile,
    // auto: SFTP, else plain exec (`cat`); scp: the SCP protocol over exec (main/services/transfer).
    transfer: appliance.transfer,
    ...(appliance.become ? { become: appliance.become } : {}),
    workspace: workspacePath,
  };
  if (sections) target.onto = ontoFor(ws, appliance, workspacePath, render.configPath);
  return { appliance, render, target, errors, ...(cli ? { cli } : {}) };
}

/** manage: sections: the push and the diff render onto the live file (its bytes outside owned sections kept). */
function ontoFor(ws: Workspace, appliance: Appliance, workspacePath: string, configPath: string): SyncTarget['onto'] {
  return (live, base, force): OntoOutcome => {
    if (live === undefined) return { refused: `manage: sections needs the appliance's ${configPath}, and it does not exist: push once with manage: file, or create it`, conflicts: [] };
    const r = renderOnto(ws, appliance, live.toString('utf8'), { workspacePath }, { file: `${appliance.name}:${configPath}`, base: base?.toString('utf8'), force });
    if (r.errors.length) return { refused: r.errors.map((e) => `${e.subject}: ${e.message}`).join('; '), conflicts: r.conflicts };
    return { data: Buffer.from(r.text, 'utf8'), conflicts: r.conflicts };
  };
}
