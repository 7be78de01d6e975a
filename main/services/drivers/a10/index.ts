// driver: a10 — A10 Networks Thunder/AX (ACOS 2.x and 4.x), changed by commands computed from
// its running config (docs/vendor-cli.md, "A10"). Everything the A10 dialect knows lives in this
// folder: parse (parse.ts), import (import.ts), diff -> commands with inverses (plan.ts), and
// what `show running-config` reads after the commands (edit.ts).
import { CLI_VOLATILE, DEFAULT_PROMPT } from '../box-patterns';
import type { Driver } from '../types';
import { importA10 } from './import';
import { planA10 } from './plan';
import { a10Live } from './show';

/** `vThunder(config-real server)#`, `vThunder(config-slb svc group-member:80)#`: spaces inside the mode. */
export const A10_PROMPT = new RegExp(`${DEFAULT_PROMPT.source}|^[\\w.-]+(?:-(?:Active|Standby|ForcedStandby))?(?:-vMaster\\[\\d+\\]|-vBlade\\[\\d+\\])?(?:\\(config(?:-[\\w .:/-]+)?\\))?[#>] ?$`);

export const a10Driver: Driver = {
  name: 'a10',
  defaults: { configPath: '', validateCommand: '', reloadCommand: '' },
  render(workspace, appliance) {
    // Without the box's running config: the owned objects as a new box would print them.
    const p = planA10(workspace, appliance, '');
    return { text: p.after, errors: p.errors, warnings: p.warnings };
  },
  // `!Configuration last updated at 06:12:09 UTC …` changes with every change and save.
  volatile: [...CLI_VOLATILE, /^!Configuration last (?:updated|saved) at .*$/],
  commands: {
    plan: planA10,
    enable: 'enable',
    prologue: ['terminal length 0', 'configure terminal'],
    save: ['end', 'write memory'],
    leave: ['end'],
    show: 'show running-config',
    patterns: { prompt: A10_PROMPT },
  },
  importer: (text, file, opts) => importA10(text, file, opts),
  live: a10Live,
};
