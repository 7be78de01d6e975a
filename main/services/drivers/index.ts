// The appliance drivers: render a workspace for one appliance, with its commands.
import type { Appliance, DriverName, Workspace } from '../../../shared/model/schema';
import { cutText, UnwritableTextError } from '../../../shared/model/text-rules';
import { a10Driver } from './a10';
import { adxDriver } from './adx';
import { netscalerDriver } from './netscaler';
import { cliDriver } from './template';
import { f5Driver } from './f5';
import { haproxyDriver } from './haproxy';
import { keepalivedDriver } from './keepalived';
import { lbdeskDriver } from './lbdesk';
import { pingdirectoryDriver } from './pingdirectory';
import { haproxyOnto } from './sections/haproxy-onto';
import { keepalivedOnto } from './sections/keepalived-onto';
import type { Driver, DriverDefaults, DriverProblem, RenderContext, RenderResult } from './types';

export { selectIncluded, targetSetIncludeName, parseTargetSetIncludeName, type Included } from './include';
export { parseHeader, type ParsedHeader } from './header';
export { servedWorkspace } from './lbdesk';
export type { Driver, DriverDefaults, DriverProblem, RenderContext, RenderResult, CommandDriven, CommandPlan, CommandStep, BatchApply, BatchResult } from './types';

// Complete: a name in shared/model/drivers.ts without its Driver here does not compile.
const DRIVERS: Record<DriverName, Driver> = {
  // Their manage: sections part is wired here: drivers/sections/ builds on the renders.
  haproxy: { ...haproxyDriver, onto: haproxyOnto },
  keepalived: { ...keepalivedDriver, onto: keepalivedOnto },
  lbdesk: lbdeskDriver,
  cli: cliDriver,
  adx: adxDriver,
  a10: a10Driver,
  netscaler: netscalerDriver,
  f5: f5Driver,
  pingdirectory: pingdirectoryDriver,
};

/** Thrown for a driver name that has no implementation (yet). */
export class DriverUnavailableError extends Error {
  constructor(readonly driver: string) {
    super(`driver "${driver}" is not available yet (available: ${Object.keys(DRIVERS).join(', ')})`);
  }
}

export function getDriver(name: DriverName): Driver {
  const driver = DRIVERS[name];
  if (!driver) throw new DriverUnavailableError(name);
  return driver;
}

export function availableDrivers(): DriverName[] {
  return Object.keys(DRIVERS) as DriverName[];
}

export interface ApplianceRender extends RenderResult {
  defaults: DriverDefaults;
  /** The appliance's own settings where given, else the driver's defaults. */
  configPath: string;
  validateCommand: string;
  reloadCommand: string;
}

/** Renders for one appliance and applies its configPath / validateCommand / reloadCommand overrides. */
export function renderForAppliance(workspace: Workspace, appliance: Appliance, ctx: RenderContext): ApplianceRender {
  let driver: Driver;
  try {
    driver = getDriver(appliance.driver);
  } catch (err) {
    if (!(err instanceof DriverUnavailableError)) throw err;
    const defaults: DriverDefaults = { configPath: '', validateCommand: '', reloadCommand: '' };
    return {
      text: '',
      errors: [{ subject: `appliance ${appliance.name}`, message: err.message }],
      warnings: [],
      defaults,
      configPath: appliance.configPath ?? '',
      validateCommand: appliance.validateCommand ?? '',
      reloadCommand: appliance.reloadCommand ?? '',
    };
  }
  const result = checkedRender(driver, workspace, appliance, ctx);
  return {
    ...result,
    defaults: driver.defaults,
    configPath: appliance.configPath ?? driver.defaults.configPath,
    validateCommand: appliance.validateCommand ?? driver.defaults.validateCommand,
    reloadCommand: appliance.reloadCommand ?? driver.defaults.reloadCommand,
  };
}

/** Longest problem subject and message shown: a value echoed in one is never shown whole. */
const SUBJECT_MAX = 80;
const MESSAGE_MAX = 500;

/**
 * The driver's render, checked once more whatever the workspace passed: no control character
 * in the output but tab and line feed (a value that got one in is refused, not sent), and every
 * problem on one line and cut, so a hostile value cannot split or flood what is printed.
 */
function checkedRender(driver: Driver, workspace: Workspace, appliance: Appliance, ctx: RenderContext): RenderResult {
  const subject = `appliance ${appliance.name}`;
  let result: RenderResult;
  try {
    result = driver.render(workspace, appliance, ctx);
  } catch (err) {
    if (!(err instanceof UnwritableTextError)) throw err;
    result = { text: '', errors: [{ subject, message: err.message }], warnings: [] };
  }
  // eslint-disable-next-line no-control-regex
  const bad = /[\x00-\x08\x0b-\x1f\x7f\u2028\u2029]/.exec(result.text);
  if (bad) {
    const line = result.text.slice(0, bad.index).split('\n').length;
    result = { ...result, text: '', errors: [...result.errors, { subject, message: `rendered a control character on line ${line}: refused` }] };
  }
  const shown = (p: DriverProblem): DriverProblem => ({ subject: cutText(p.subject, SUBJECT_MAX), message: cutText(p.message, MESSAGE_MAX) });
  return { ...result, errors: result.errors.map(shown), warnings: result.warnings.map(shown) };
}
