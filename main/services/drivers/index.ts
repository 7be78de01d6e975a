// The appliance drivers: render a workspace for one appliance, with its commands.
import type { Appliance, DriverName, Workspace } from '../../../shared/model/schema';
import { adxDriver } from './adx';
import { cliDriver } from './cli';
import { haproxyDriver } from './haproxy';
import { keepalivedDriver } from './keepalived';
import { lbdeskDriver } from './lbdesk';
import { pingdirectoryDriver } from './pingdirectory';
import type { Driver, DriverDefaults, RenderContext, RenderResult } from './types';

export { selectIncluded, targetSetIncludeName, parseTargetSetIncludeName, type Included } from './include';
export { parseHeader, type ParsedHeader } from './header';
export { servedWorkspace } from './lbdesk';
export type { Driver, DriverDefaults, DriverProblem, RenderContext, RenderResult, CommandDriven, CommandPlan, CommandStep } from './types';

const DRIVERS: Partial<Record<DriverName, Driver>> = {
  haproxy: haproxyDriver,
  keepalived: keepalivedDriver,
  lbdesk: lbdeskDriver,
  cli: cliDriver,
  adx: adxDriver,
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
  const result = driver.render(workspace, appliance, ctx);
  return {
    ...result,
    defaults: driver.defaults,
    configPath: appliance.configPath ?? driver.defaults.configPath,
    validateCommand: appliance.validateCommand ?? driver.defaults.validateCommand,
    reloadCommand: appliance.reloadCommand ?? driver.defaults.reloadCommand,
  };
}
