// driver: f5 — F5 BIG-IP LTM, changed by tmsh commands computed from its running config
// (docs/vendor-cli.md, "F5"). Everything the dialect knows lives in this folder: parse
// (parse.ts), import (import.ts), diff -> commands with inverses (plan.ts), and what
// `tmsh show running-config` reads after the commands (edit.ts). A push runs in one tmsh
// transaction: the box takes all of it at `submit cli transaction`, or none.
import { CLI_VOLATILE, DEFAULT_ERRORS } from '../box-patterns';
import type { Driver } from '../types';
import { importF5 } from './import';
import { planF5 } from './plan';
import { f5Live } from './show';

/** `admin@(bigip1)(cfg-sync Standalone)(Active)(/Common)(tmos)# `, `(tmos.ltm)#`, `(tmos.trans)#`. */
export const F5_PROMPT = /^[\w.@-]*@\(.*\)\(tmos[\w.]*\)# ?$/;

export const f5Driver: Driver = {
  name: 'f5',
  defaults: { configPath: '', validateCommand: '', reloadCommand: '' },
  render(workspace, appliance) {
    const p = planF5(workspace, appliance, '');
    return { text: p.after, errors: p.errors, warnings: p.warnings };
  },
  // `last-modified-time 2020-09-18:10:05:54` changes with every modify.
  volatile: [...CLI_VOLATILE, /^\s*(?:last-modified-time|creation-time) \S+$/],
  commands: {
    plan: planF5,
    prologue: ['modify cli preference pager disabled display-threshold 0'],
    save: ['save sys config'],
    leave: [],
    show: 'show running-config',
    patterns: {
      prompt: F5_PROMPT,
      pager: /---\s?\(less \d+%\)\s?---|\(END\)\s*$/,
      pagerKey: ' ',
      // `01020036:3: The requested node (/Common/x) was not found.`, `Syntax Error: …`, `Data Input Error: …`.
      errors: [...DEFAULT_ERRORS, /^\s*[0-9a-f]{8}:\d+: /i, /^\s*(?:Syntax|Data Input) Error:/i],
    },
    transaction: { begin: 'create cli transaction', submit: 'submit cli transaction', abort: 'delete cli transaction' },
  },
  live: f5Live,
  importer: (text, file, opts) => importF5(text, file, opts),
};
