// lab.scenarios, lab.scenario, lab.scenarioStop: a scenario file beside the running lab's
// workspace, read by the page-read rule (files/read.ts) and played by serve's scenario runner.
import { readdir } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, normalize } from 'node:path';
import { ApiError } from '../../../shared/api/contract';
import type { Lab } from '../lab';
import { parseScenario } from '../lab/scenario';
import { formatProblem } from '../../../shared/model/problem';
import { asApiError, WORKSPACE_EXTENSIONS } from '../files/guard';
import { readChecked, realFolderOf } from '../files/read';
import type { Handler } from './dispatch';

const MAX_SCENARIO_BYTES = 1024 * 1024;

/** The steps of a scenario file the rule allows, or an ApiError saying why not. */
function readScenario(lab: Lab, path: string) {
  const workspace = lab.workspace;
  const workspaceFile = lab.status().path;
  if (!workspace || !workspaceFile) throw new ApiError('refused', 'the lab is not running: start it on the workspace first');
  if (path.includes('\0') || !isAbsolute(path)) throw new ApiError('refused', `not an absolute path: ${path}`);
  const clean = normalize(path);
  if (!WORKSPACE_EXTENSIONS.has(extname(clean).toLowerCase())) throw new ApiError('refused', `only scenario files (.yaml, .yml) can be run: ${clean}`);
  let text: string;
  try {
    text = readChecked(clean, { max: MAX_SCENARIO_BYTES, within: realFolderOf(workspaceFile) }).bytes.toString('utf8');
  } catch (e) {
    throw asApiError(e);
  }
  const parsed = parseScenario(text, basename(clean), workspace);
  if ('problems' in parsed) {
    const more = parsed.problems.length - 1;
    throw new ApiError('refused', `${formatProblem(parsed.problems[0]!)}${more ? ` (and ${more} more)` : ''}`);
  }
  return parsed.steps;
}

export function scenarioHandlers(lab: Lab): { [M in 'lab.scenarios' | 'lab.scenario' | 'lab.scenarioStop']: Handler<M> } {
  return {
    'lab.scenarios': async () => {
      const workspaceFile = lab.status().path;
      if (!lab.running || !workspaceFile) return [];
      const folder = realFolderOf(workspaceFile);
      const names = (await readdir(folder).catch(() => [] as string[])).filter((n) => WORKSPACE_EXTENSIONS.has(extname(n).toLowerCase())).sort();
      const found: { path: string; name: string; steps: number }[] = [];
      for (const name of names.slice(0, 200)) {
        const path = join(folder, name);
        try {
          found.push({ path, name, steps: readScenario(lab, path).length });
        } catch {
          // Not a scenario (the workspace itself, another site, a hidden file): not offered.
        }
      }
      return found;
    },
    'lab.scenario': async ({ path }) => {
      const steps = readScenario(lab, path);
      try {
        return await lab.scenario(steps, basename(path));
      } catch (err) {
        throw new ApiError('refused', (err as Error).message);
      }
    },
    'lab.scenarioStop': async () => lab.stopScenario(),
  };
}
