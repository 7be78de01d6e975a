// driver: netscaler — Citrix NetScaler / ADC, changed by commands computed from its running
// config (docs/vendor-cli.md, "NetScaler"). Everything the dialect knows lives in this folder:
// parse (parse.ts), import (import.ts), diff -> commands with inverses (plan.ts), and what
// `show ns runningConfig` reads after the commands (edit.ts).
import { CLI_VOLATILE } from '../box-patterns';
import type { Driver } from '../types';
import { importNs } from './import';
import { planNs } from './plan';
import { nsLive } from './show';

/** The NetScaler CLI prompt: `> ` (` > ` on some releases, `HOST> ` after `set cli prompt`). */
export const NS_PROMPT = /^\s?(?:[\w.@:()-]+ ?)?> ?$/;

export const netscalerDriver: Driver = {
  name: 'netscaler',
  defaults: { configPath: '', validateCommand: '', reloadCommand: '' },
  render(workspace, appliance) {
    const p = planNs(workspace, appliance, '');
    return { text: p.after, errors: p.errors, warnings: p.warnings };
  },
  // The saved-config stamp changes on every `save ns config`.
  volatile: [...CLI_VOLATILE, /^# Last modified by `save config`.*$/],
  commands: {
    plan: planNs,
    patterns: { prompt: NS_PROMPT },
    // No configuration mode: every command applies at once.
    prologue: ['set cli mode -page OFF'],
    save: ['save ns config'],
    leave: [],
    show: 'show ns runningConfig',
  },
  live: nsLive,
  importer: (text, file, opts) => importNs(text, file, opts),
};
