// driver: adx — Brocade/Foundry ServerIron ADX, changed by commands computed from its running
// config (docs/vendor-cli.md, "ADX"). Everything the ADX dialect knows lives in this folder:
// parse (parse.ts), import (import.ts), diff -> commands with inverses (plan.ts), and what
// `show running-config` reads after the commands (edit.ts).
import { CLI_VOLATILE } from '../box-patterns';
import type { Driver } from '../types';
import { importAdx } from './import';
import { planAdx } from './plan';
import { adxLive } from './show';

export const adxDriver: Driver = {
  name: 'adx',
  // No file and no shell commands: the box is configured by the commands themselves.
  defaults: { configPath: '', validateCommand: '', reloadCommand: '' },
  render(workspace, appliance) {
    // Without the box's running config: the owned objects as a new box would print them.
    const p = planAdx(workspace, appliance, '');
    return { text: p.after, errors: p.errors, warnings: p.warnings };
  },
  volatile: CLI_VOLATILE,
  commands: {
    plan: planAdx,
    enable: 'enable',
    prologue: ['skip-page-display', 'configure terminal'],
    save: ['end', 'write memory'],
    leave: ['end'],
    show: 'show running-config',
  },
  live: adxLive,
  importer: (text, file, opts) => importAdx(text, file, opts),
};
