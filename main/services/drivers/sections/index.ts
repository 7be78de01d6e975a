// `manage: sections`: render the workspace onto the file an appliance holds (docs/drivers.md).
import type { Appliance, Workspace } from '../../../../shared/model/schema';
import { getDriver, renderForAppliance } from '../index';
import type { RenderContext } from '../types';
import type { OntoOptions, OntoResult } from './types';

export type { OntoOptions, OntoResult } from './types';
export { markerLine, markerHash, sectionHash } from './markers';

/**
 * The whole file a push would leave on an appliance that holds `current` now. With
 * `manage: file` that is the plain render; with `sections` only owned sections change.
 */
export function renderOnto(workspace: Workspace, appliance: Appliance, current: string, ctx: RenderContext, opts: OntoOptions): OntoResult {
  // A command-driven box: its running config after the commands that bring it to the workspace.
  const commands = getDriver(appliance.driver).commands;
  if (commands) {
    const p = commands.plan(workspace, appliance, current);
    return { text: p.after, errors: p.errors, warnings: p.warnings, conflicts: [], steps: p.steps };
  }
  const onto = getDriver(appliance.driver).onto;
  if (appliance.manage === 'sections' && onto) return onto(workspace, appliance, current, opts);
  const r = renderForAppliance(workspace, appliance, ctx);
  return { text: r.text, errors: r.errors, warnings: r.warnings, conflicts: [] };
}
