// What each driver can do, as facts the validation, the services and the page ask instead of a
// driver's name. main's registry (main/services/drivers/index.ts) is checked against this table
// (test/main/services/drivers/driver-facts.test.ts): a Driver object and its facts cannot drift.
// Adding a name to DRIVERS fails to compile until its row is here.

/** Every driver a workspace may name (`driver:`), in the order help and lists show them. */
export const DRIVERS = ['haproxy', 'keepalived', 'lbdesk', 'cli', 'adx', 'a10', 'netscaler', 'f5', 'pingdirectory'] as const;
export type DriverName = (typeof DRIVERS)[number];

export interface DriverDefaults {
  configPath: string;
  /** `{file}` is replaced by the uploaded candidate's path. */
  validateCommand: string;
  reloadCommand: string;
}

export interface DriverFacts {
  /**
   * `manage: sections`: `file` patches lbdesk's sections into the box's config file, `objects`
   * changes only the box objects lbdesk owns; false: the driver writes the whole file.
   */
  sections: 'file' | 'objects' | false;
  /** With `manage: sections` and no `include`, hand-written parts of the box may use any group. */
  handWrittenUseGroups: boolean;
  /** Changed by commands in the box's CLI: `cli:` settings apply, configPath is the box's own name. */
  commandDriven: boolean;
  /** Renders the appliance's `template` (a vendor CLI pushed by its commands, never as a file). */
  template: boolean;
  /**
   * Reads a box's config into a workspace: `file` by main/services/import (includes followed,
   * merged into a workspace from the editor), `driver` by the driver folder's own importer.
   */
  importer: 'file' | 'driver' | false;
  /** Renders the VRRP of an HA pair itself (the box a pair member names in `keepalived`). */
  carriesVrrp: boolean;
  /** After a push, the enabled TCP services' addresses are dialled to prove the reload served them. */
  verifyVip: boolean;
  /** Has runtime operations (live state; drain, maint, ready where the box has them). */
  runtime: boolean;
  /** Configured by the product's own tool through the appliance's `dsconfig:` settings (server root, bind): no config file, no reload. */
  dsconfig: boolean;
  defaults: DriverDefaults;
}

const NONE: DriverDefaults = { configPath: '', validateCommand: '', reloadCommand: '' };
const VENDOR = { sections: 'objects', handWrittenUseGroups: false, commandDriven: true, template: false, importer: 'driver', carriesVrrp: false, verifyVip: false, runtime: false, dsconfig: false, defaults: NONE } as const;

const FACTS = {
  haproxy: {
    sections: 'file', handWrittenUseGroups: true, commandDriven: false, template: false, importer: 'file', carriesVrrp: false, verifyVip: true, runtime: true, dsconfig: false,
    defaults: { configPath: '/etc/haproxy/haproxy.cfg', validateCommand: 'haproxy -c -f {file}', reloadCommand: 'systemctl reload haproxy' },
  },
  keepalived: {
    // Its VIPs live on whichever node is master (the peer may hold them): not dialled after a push.
    sections: 'file', handWrittenUseGroups: false, commandDriven: false, template: false, importer: 'file', carriesVrrp: true, verifyVip: false, runtime: true, dsconfig: false,
    defaults: { configPath: '/etc/keepalived/keepalived.conf', validateCommand: 'keepalived -t -e -f {file}', reloadCommand: 'systemctl reload keepalived' },
  },
  lbdesk: {
    sections: false, handWrittenUseGroups: false, commandDriven: false, template: false, importer: false, carriesVrrp: false, verifyVip: true, runtime: true, dsconfig: false,
    defaults: { configPath: '/etc/lbdesk/workspace.yaml', validateCommand: 'lbdesk validate {file}', reloadCommand: 'systemctl reload lbdesk' },
  },
  // No file and no shell commands: a vendor CLI is configured by the commands themselves.
  cli: { sections: false, handWrittenUseGroups: false, commandDriven: true, template: true, importer: false, carriesVrrp: false, verifyVip: false, runtime: false, dsconfig: false, defaults: NONE },
  adx: { ...VENDOR, runtime: true },
  a10: { ...VENDOR, runtime: true },
  netscaler: { ...VENDOR, runtime: true },
  f5: { ...VENDOR, runtime: true },
  // Applied as a dsconfig batch file, not typed into a CLI session: no `cli:` settings.
  pingdirectory: { ...VENDOR, commandDriven: false, runtime: true, dsconfig: true },
} as const satisfies Record<DriverName, DriverFacts>;

type Facts = typeof FACTS;
/** The drivers main/services/import reads (haproxy, keepalived). */
export type FileImportDriver = { [K in DriverName]: Facts[K]['importer'] extends 'file' ? K : never }[DriverName];

/** The facts of a driver named in a workspace. */
export function driverFacts(name: DriverName): DriverFacts {
  return FACTS[name];
}

/** A name read from unparsed text (the page's raw document): its facts, or undefined for no driver. */
export function factsOf(name: unknown): DriverFacts | undefined {
  return typeof name === 'string' && (DRIVERS as readonly string[]).includes(name) ? FACTS[name as DriverName] : undefined;
}

/** The drivers with a fact, in DRIVERS order (for lists in messages and help). */
export function driversWhere(test: (f: DriverFacts) => boolean): DriverName[] {
  return DRIVERS.filter((d) => test(FACTS[d]));
}

export function isFileImport(name: DriverName): name is FileImportDriver {
  return FACTS[name].importer === 'file';
}

export const FILE_IMPORT_DRIVERS = DRIVERS.filter(isFileImport);

/** Drivers that change a box by commands in its CLI (their `cli:` settings apply; no config file). */
export const COMMAND_DRIVERS: readonly DriverName[] = driversWhere((f) => f.commandDriven);
/** Drivers that can own part of what a box holds and keep the rest (`manage: sections`). */
export const SECTION_DRIVERS: readonly DriverName[] = driversWhere((f) => f.sections !== false);
/** Drivers that render the appliance's `template`. */
export const TEMPLATE_DRIVERS: readonly DriverName[] = driversWhere((f) => f.template);
