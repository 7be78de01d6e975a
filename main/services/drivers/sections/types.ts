// What rendering onto the appliance's current file gives.
import type { CommandStep, DriverProblem } from '../types';

export interface OntoOptions {
  /** Name of the current file in messages. */
  file: string;
  /** The version lbdesk last pulled or pushed: an owned section that differs from it was edited on the appliance. */
  base?: string;
  /** Go ahead despite conflicts (the user said so). */
  force?: boolean;
}

export interface OntoResult {
  text: string;
  errors: DriverProblem[];
  warnings: DriverProblem[];
  /** Owned sections edited on the appliance since lbdesk last wrote or saw them, one line each. */
  conflicts: string[];
  /** A command-driven driver: the changes as commands, each with its inverse. */
  steps?: CommandStep[];
}
