// What every appliance driver offers; the SSH sync service builds on this only.
import type { Appliance, DriverName, Workspace } from '../../../shared/model/schema';

export interface DriverProblem {
  /** The service, target set or group named (e.g. `service dns-vip`). */
  subject: string;
  message: string;
}

export interface RenderResult {
  /** The complete file to upload; deterministic for the same input. */
  text: string;
  /** Parts the driver cannot express: rendering is refused when non-empty. */
  errors: DriverProblem[];
  /** Lossy but safe approximations, each named. */
  warnings: DriverProblem[];
}

export interface DriverDefaults {
  configPath: string;
  /** `{file}` is replaced by the uploaded candidate's path. */
  validateCommand: string;
  reloadCommand: string;
}

export interface RenderContext {
  /** Absolute path of the workspace file, for headers and relative templates. */
  workspacePath: string;
}

export interface Driver {
  name: DriverName;
  defaults: DriverDefaults;
  render(workspace: Workspace, appliance: Appliance, ctx: RenderContext): RenderResult;
  /** Lines that change on their own (clock, counters), masked before diffing. */
  volatile: RegExp[];
}

/** Problems without repeats (a set rendered on several ports says each thing once). */
export function dedupe(problems: DriverProblem[]): DriverProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = `${p.subject}\n${p.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
