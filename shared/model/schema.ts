// The workspace schema: every field, range and default of ../shared/spec/workspace.example.yaml.
// Types are inferred from it (z.input = what the file holds, z.output = what the services use).
import { z } from 'zod';
import { parseDuration, formatDuration } from './duration';
import { DEFAULT_FACTOR, ipfeMate, normaliseFactorValues } from './ipfe';
import { isIpAddress } from './address';
import { ruledText } from './text-rules';
import { patternProblem } from './regex-safety';
import { DRIVERS } from './drivers';

// The check types and their facts: shared/model/checks/ (one descriptor per type).
import { CHECK_TYPES, OPTION_BLOCKS } from './checks/descriptors';
import { L7_PROTOCOLS } from './checks/tables';
export { CHECK_TYPES, L7_PROTOCOLS };
export type { CheckType } from './checks/descriptors';
export type { L7Protocol } from './checks/tables';

export const ALGORITHMS = [
  'round-robin', 'weighted-round-robin', 'least-connections', 'source-hash', 'health-weighted',
] as const;
export const IPFE_NAMES = ['A1', 'A2', 'B1', 'B2'] as const;
// The driver names and what each can do: shared/model/drivers.ts.
export { DRIVERS, COMMAND_DRIVERS, SECTION_DRIVERS, type DriverName } from './drivers';

/** A duration bounded in milliseconds; parses to milliseconds. */
export function duration(minMs: number, maxMs: number) {
  return z
    .union([z.number(), z.string()], { error: 'must be a duration (seconds, or 500ms, 10s, 5m, 1h)' })
    .transform((v, ctx) => {
      const ms = parseDuration(v);
      if (ms === undefined) {
        ctx.addIssue({ code: 'custom', message: `"${String(v)}" is not a duration (seconds, or 500ms, 10s, 5m, 1h)` });
        return z.NEVER;
      }
      if (ms < minMs || ms > maxMs) {
        ctx.addIssue({ code: 'custom', message: `must be between ${formatDuration(minMs)} and ${formatDuration(maxMs)}` });
        return z.NEVER;
      }
      return ms;
    });
}

export const ipAddress = z.string().refine(isIpAddress, { message: 'must be an IPv4 or IPv6 address' });
const name = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, 'must be 1-63 letters, digits, ".", "_" or "-", starting with a letter or digit');
const port = z.number({ error: 'must be a port number from 1 to 65535' })
  .int({ error: 'must be a port number from 1 to 65535' })
  .min(1, { error: 'must be a port number from 1 to 65535' })
  .max(65535, { error: 'must be a port number from 1 to 65535' });
/** An integer with its vendor range in every message (the renderer shows it as the hint). */
const int = (min: number, max: number) => {
  const range = `must be an integer from ${min} to ${max}`;
  return z.number({ error: range }).int({ error: range }).min(min, { error: range }).max(max, { error: range });
};

/** A member's or target server's weight (IPFE and lbdesk; HAProxy's 0-256 is scaled to on render). */
export const WEIGHT_RANGE = { min: 0, max: 65535 } as const;

export const healthTimersSchema = z.strictObject({
  interval: duration(100, 86_400_000).optional(),
  retryInterval: duration(100, 86_400_000).optional(),
  failAfter: int(1, 255).optional(),
  restoreAfter: int(1, 255).optional(),
  timeout: duration(100, 300_000).optional(),
});

export const httpCheckSchema = z.strictObject({
  path: ruledText('httpPath').startsWith('/', 'must start with "/"').optional(),
  expect: ruledText('httpExpect').min(1).optional(),
  host: ruledText('httpHost').min(1).optional(),
});
export const tlsCheckSchema = z.strictObject({
  serverName: ruledText('tlsServerName').min(1).optional(),
  verify: z.boolean().default(OPTION_BLOCKS.tls.fields.verify.default),
});
/**
 * A secret's name in the secret store, never the secret: a plain name, so a password typed
 * here by mistake is refused (the message does not repeat it) instead of being saved to the
 * file and printed in reasons and logs.
 */
export const SECRET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const SECRET_NAME_MESSAGE = "must be the name of a secret in the secret store (letters, digits, '.', '_', '-', up to 64), not the secret itself";
const secretRef = z.string().regex(SECRET_NAME, SECRET_NAME_MESSAGE);

export const ldapCheckSchema = z.strictObject({
  baseDn: ruledText('ldapText').default(OPTION_BLOCKS.ldap.fields.baseDn.default),
  scope: z.enum(OPTION_BLOCKS.ldap.fields.scope.choices).default(OPTION_BLOCKS.ldap.fields.scope.default),
  filter: ruledText('ldapText').default(OPTION_BLOCKS.ldap.fields.filter.default),
  bindDn: ruledText('ldapText').optional(),
  /** Name of a secret in the secret store holding the bind password. */
  bindSecret: secretRef.optional(),
  /** attribute -> value that must be present in the first returned entry. */
  expect: z.record(z.string().regex(/^[A-Za-z][A-Za-z0-9-]{0,127}(?:;[A-Za-z0-9-]{1,64})*$/, 'must be an LDAP attribute name'), ruledText('ldapText')).optional(),
});
export const dnsCheckSchema = z.strictObject({
  query: ruledText('dnsQuery').min(1),
  recordType: z.enum(OPTION_BLOCKS.dns.fields.recordType.choices).default(OPTION_BLOCKS.dns.fields.recordType.default),
});
export const radiusCheckSchema = z.strictObject({
  /** Name of a secret in the secret store holding the RADIUS shared secret. */
  secret: secretRef,
  mode: z.enum(OPTION_BLOCKS.radius.fields.mode.choices).default(OPTION_BLOCKS.radius.fields.mode.default),
  username: ruledText('radiusUsername').optional(),
});

export const healthCheckSchema = z.strictObject({
  type: z.enum(CHECK_TYPES).default('auto'),
  protocol: z.enum(L7_PROTOCOLS).optional(),
  layer: z.union([z.literal(4), z.literal(7)]).optional(),
  http: httpCheckSchema.optional(),
  tls: tlsCheckSchema.optional(),
  ldap: ldapCheckSchema.optional(),
  dns: dnsCheckSchema.optional(),
  radius: radiusCheckSchema.optional(),
  degradedAbove: duration(1, 300_000).optional(),
  availableBelow: duration(1, 300_000).optional(),
});

export const serverSchema = z.strictObject({
  name,
  address: ipAddress,
  enabled: z.boolean().default(true),
  description: ruledText('description').optional(),
  healthTimers: healthTimersSchema.optional(),
});

export const memberSchema = z.strictObject({
  server: z.string(),
  port: port.optional(),
  weight: int(WEIGHT_RANGE.min, WEIGHT_RANGE.max).default(100),
});

export const groupSchema = z.strictObject({
  name,
  description: ruledText('description').optional(),
  members: z.array(memberSchema).default([]),
  healthCheck: healthCheckSchema.prefault({}),
  healthTimers: healthTimersSchema.optional(),
});

export const serviceSchema = z.strictObject({
  name,
  description: ruledText('description').optional(),
  address: ipAddress,
  port,
  protocol: z.enum(['tcp', 'udp']).default('tcp'),
  group: z.string(),
  algorithm: z.enum(ALGORITHMS).default('round-robin'),
  persistence: z
    .strictObject({
      type: z.enum(['none', 'client-ip']).default('none'),
      timeout: duration(1000, 86_400_000).default(300_000 as never),
    })
    .prefault({}),
  idleTimeout: duration(1000, 86_400_000).default(600_000 as never),
  enabled: z.boolean().default(true),
});

export const targetServerSchema = z.strictObject({
  address: ipAddress,
  secondaryAddress: ipAddress.optional(),
  description: ruledText('description').optional(),
  weight: int(WEIGHT_RANGE.min, WEIGHT_RANGE.max).default(100),
  /** Capacities for IPFE least load (mtotal, ctotal) when the server sends no heartbeat with them. */
  capacity: z
    .strictObject({ mps: int(1, 100_000_000).optional(), connections: int(1, 100_000_000).optional() })
    .optional(),
});

export const targetSetSchema = z.strictObject({
  number: int(1, 32),
  description: ruledText('description').optional(),
  address: ipAddress,
  secondaryAddress: ipAddress.optional(),
  ports: z.array(port).default([]),
  protocols: z.enum(['tcp', 'sctp', 'both']).default('both'),
  algorithm: z.enum(['hash', 'least-load']).default('least-load'),
  leastLoad: z
    .strictObject({
      mpsFactor: int(0, 100).default(DEFAULT_FACTOR),
      connectionFactor: int(0, 100).default(DEFAULT_FACTOR),
      allowedDeviation: int(0, 50).default(5),
    })
    .prefault({}),
  peerNodeAware: z
    .strictObject({ enabled: z.boolean().default(true), threshold: int(0, 10).default(1) })
    .prefault({}),
  deleteAge: int(10, 3_110_400).default(600),
  /** Least-load heartbeats: servers send load lines (docs/engine.md) to UDP TSA:port; ttl = how long one counts. */
  heartbeat: z.strictObject({ port, ttl: duration(500, 3_600_000).default(3000 as never) }).optional(),
  activeIpfe: z.enum(IPFE_NAMES).default('A1'),
  secondaryActiveIpfe: z.enum(IPFE_NAMES).optional(),
  initiatorSupport: z.boolean().default(false),
  disabled: z.boolean().default(false),
  servers: z.array(targetServerSchema).default([]),
  healthCheck: healthCheckSchema.optional(),
  healthTimers: healthTimersSchema.optional(),
});

/** A target set as the services see it: the standby is always the active IPFE's mate (seed 003). */
export const targetSetResolvedSchema = targetSetSchema.transform((t) => ({
  ...t,
  // What the target set means is what a save writes (Fm + Fc normalised to 100, seed 003): the
  // lab, `serve` and every driver use that, not the unsaved 30 + 30.
  leastLoad: { ...t.leastLoad, ...normaliseFactorValues(t.leastLoad.mpsFactor, t.leastLoad.connectionFactor) },
  standbyIpfe: ipfeMate(t.activeIpfe),
  secondaryStandbyIpfe: t.secondaryActiveIpfe === undefined ? undefined : ipfeMate(t.secondaryActiveIpfe),
}));

/** A regular expression given as a string (JavaScript syntax, no slashes), safe to backtrack. */
const regexString = z.string().min(1).superRefine((s, ctx) => {
  const why = patternProblem(s);
  if (why) ctx.addIssue({ code: 'custom', message: why });
});

/**
 * `driver: cli`: how the appliance's command line behaves (docs/vendor-cli.md). Every pattern
 * has a default that fits ADX-, Px- and Cisco-like CLIs; `errors` and `volatile` add to theirs.
 */
export const cliSchema = z.strictObject({
  /** The prompt, matched against the last (unfinished) line of output. */
  prompt: regexString.optional(),
  /** A pager asking for a key (`--More--`); answered with a space. */
  pager: regexString.optional(),
  /** A confirmation question (`Are you sure? (y/n)`), answered with `confirmAnswer`. */
  confirm: regexString.optional(),
  confirmAnswer: ruledText('cliAnswer').default('y'),
  /** Output lines that mean a command failed (vendor CLIs often exit 0 on error). */
  errors: z.array(regexString).optional(),
  /** Lines that change by themselves (clock, uptime, temperatures, counters), masked before diffing. */
  volatile: z.array(regexString).optional(),
  /** shell: send the commands in an interactive session; upload: copy the config by SCP/SFTP; both. */
  mode: z.enum(['shell', 'upload', 'both']).default('shell'),
  /** Where `upload` / `both` put the rendered config on the appliance. */
  uploadPath: ruledText('appliancePath').min(1).optional(),
  /** Prints the running config when no configPath can be read by file transfer. */
  pullCommand: ruledText('cliCommand').min(1).default('show running-config'),
  /** Deadline of every wait for the appliance (prompt, pager, upload acknowledgement). */
  timeout: duration(100, 600_000).default(15_000 as never),
});

/** What ssh takes as a host: an address, a DNS name, or a Host alias of ~/.ssh/config. */
const sshHost = z.string().refine((h) => isIpAddress(h) || isHostName(h), {
  message: 'must be an IP address, a host name or an alias from ~/.ssh/config (letters, digits, ".", "_", "-")',
});
/** Labels of letters, digits, "_" and "-", none empty; all digits only as an IPv4 address (999.1.1.1 is a typo). */
function isHostName(h: string): boolean {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}$/.test(h)) return false;
  const labels = h.replace(/\.$/, '').split('.');
  return labels.every((l) => l.length > 0 && l.length <= 63) && !labels.every((l) => /^\d+$/.test(l));
}
const sshUser = z.string().regex(/^[A-Za-z0-9_][A-Za-z0-9_.@-]{0,63}\$?$/, 'must be a login name (letters, digits, ".", "_", "-", "@"; up to 64)');
/** A file on the appliance, on one line (absolute for every driver but cli: see crossref). */
const appliancePath = ruledText('appliancePath').min(1);

/**
 * `driver: pingdirectory`: the proxy's server root on the box, and how its `bin/dsconfig` binds
 * to the proxy there (docs/pingdirectory.md). The bind password is the secret `bindSecret`
 * names, written to a 0600 file for `--bindPasswordFile` for the one run and removed.
 */
export const dsconfigSchema = z.strictObject({
  serverRoot: appliancePath.refine((p) => p.startsWith('/'), { message: 'must be an absolute path' }),
  /** The proxy's LDAP address as dsconfig on the box dials it; lbdesk state reads cn=monitor at the appliance's host on `port`. */
  hostname: z.string().refine((h) => isIpAddress(h) || isHostName(h), { message: 'must be an IP address or a host name' }).default('localhost'),
  port: port.default(389),
  useSSL: z.boolean().default(false),
  trustAll: z.boolean().default(false),
  bindDn: ruledText('ldapText').default('cn=Directory Manager'),
  bindSecret: secretRef.optional(),
});

export const applianceSchema = z.strictObject({
  name,
  description: ruledText('description').optional(),
  host: sshHost,
  port: port.default(22),
  user: sshUser.optional(),
  auth: z.enum(['agent', 'key', 'password']).default('agent'),
  keyFile: z.string().min(1).optional(),
  hostKey: z.string().regex(/^SHA256:[A-Za-z0-9+/]{43}=?$/, 'must be an OpenSSH fingerprint "SHA256:<base64>"').optional(),
  driver: z.enum(DRIVERS).default('haproxy'),
  include: z.array(z.string()).optional(),
  configPath: appliancePath.optional(),
  validateCommand: ruledText('remoteCommand').min(1).optional(),
  reloadCommand: ruledText('remoteCommand').min(1).optional(),
  /**
   * file: lbdesk writes the whole config file. sections: it owns only the sections it renders
   * (or imported), and every other byte of the appliance's file is kept (docs/sync.md).
   */
  manage: z.enum(['file', 'sections']).default('file'),
  transfer: z.enum(['auto', 'sftp', 'scp']).default('auto'),
  legacyAlgorithms: z.boolean().default(false),
  /** Upload as the login user, then install, validate, back up, reload and arm as root through sudo. */
  become: z.enum(['sudo']).optional(),
  /**
   * `driver: haproxy`: the box's admin stats socket (runtime API: lbdesk state, drain, maint,
   * ready). Rendered into `global` at `level admin` with manage: file; unset, the socket the
   * box's own config declares is used. `driver: lbdesk`: the daemon's control socket
   * (`serve --control PATH`; default /run/lbdesk/control.sock).
   */
  statsSocket: appliancePath.refine((p) => p.startsWith('/') && !/\s/.test(p), { message: 'must be an absolute path without spaces' }).optional(),
  /** `driver: cli`: path of the template, relative to the workspace file. */
  template: z.string().min(1).optional(),
  /** `driver: cli`: prompts, pager, errors and apply mode of the vendor CLI. */
  cli: cliSchema.optional(),
  /** `driver: pingdirectory`: server root and dsconfig bind options. */
  dsconfig: dsconfigSchema.optional(),
});

/** A network interface name as Linux takes it (IFNAMSIZ: up to 15 characters). */
const interfaceName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._@:-]{0,14}$/, 'must be a network interface name (up to 15 letters, digits, ".", "_", "-", ":", "@")');

export const pairMemberSchema = z.strictObject({
  /** An appliance of the workspace. */
  appliance: z.string(),
  /** The IPFE this box is (seed 003): the members of a pair are mates, A1 + A2 or B1 + B2. */
  ipfe: z.enum(IPFE_NAMES).optional(),
  /** The box's own address on the pair's interface: the unicast source, and its mate's peer. */
  address: ipAddress.optional(),
  /** For a haproxy or lbdesk member: the keepalived appliance on the same box that carries the VRRP. */
  keepalived: z.string().optional(),
});

export const vrrpInstanceSchema = z.strictObject({
  /** virtual_router_id: 1-255, unique per interface (both members use the same). */
  id: int(1, 255),
  /** The member that carries the addresses while it is up: its appliance name or its IPFE name. */
  master: z.string(),
  /** Services whose address this instance moves. */
  services: z.array(z.string()).default([]),
  /** Further addresses (target-set addresses follow activeIpfe by themselves). */
  addresses: z.array(ipAddress).default([]),
});

export const pairSchema = z.strictObject({
  name,
  description: ruledText('description').optional(),
  members: z.array(pairMemberSchema).default([]),
  interface: interfaceName,
  priority: z.strictObject({ master: int(1, 254).default(150), backup: int(1, 254).default(100) }).prefault({}),
  /** VRRP advertisement interval (whole seconds, VRRPv2). */
  advertInterval: duration(1000, 255_000).default(1000 as never),
  /** A returning master does not take its addresses back from the mate. */
  nopreempt: z.boolean().default(false),
  /** A returning master waits this long before taking its addresses back (keepalived: up to 1000 s). */
  preemptDelay: duration(0, 1_000_000).optional(),
  /** Advertise to the mate's address instead of multicast (both members need `address`). */
  unicast: z.boolean().default(false),
  /** Interfaces whose failure hands the addresses to the mate. */
  trackInterfaces: z.array(interfaceName).optional(),
  /** A command whose failure hands the addresses to the mate (e.g. "pidof haproxy"). */
  trackScript: z.strictObject({
    command: ruledText('trackScript').min(1),
    interval: duration(1000, 3_600_000).default(2000 as never),
    fall: int(1, 255).default(2),
    rise: int(1, 255).default(2),
  }).optional(),
  instances: z.array(vrrpInstanceSchema).default([]),
});

export const workspaceSchema = z.strictObject({
  lbdesk: z.literal(1, { error: 'must be 1 (the workspace format version)' }),
  name: ruledText('workspaceName').min(1),
  description: ruledText('description').optional(),
  healthTimers: healthTimersSchema.optional(),
  servers: z.array(serverSchema).default([]),
  groups: z.array(groupSchema).default([]),
  services: z.array(serviceSchema).default([]),
  targetSets: z.array(targetSetResolvedSchema).default([]),
  appliances: z.array(applianceSchema).default([]),
  /** HA pairs: two appliances sharing virtual addresses over VRRP (docs/ha.md). */
  pairs: z.array(pairSchema).default([]),
});

export type WorkspaceInput = z.input<typeof workspaceSchema>;
export type Workspace = z.output<typeof workspaceSchema>;
export type Server = z.output<typeof serverSchema>;
export type Group = z.output<typeof groupSchema>;
export type Member = z.output<typeof memberSchema>;
export type HealthCheck = z.output<typeof healthCheckSchema>;
export type HealthTimersInput = z.output<typeof healthTimersSchema>;
export type Service = z.output<typeof serviceSchema>;
export type TargetSet = z.output<typeof targetSetResolvedSchema>;
export type TargetServer = z.output<typeof targetServerSchema>;
export type Appliance = z.output<typeof applianceSchema>;
export type Pair = z.output<typeof pairSchema>;
export type PairMember = z.output<typeof pairMemberSchema>;
export type VrrpInstance = z.output<typeof vrrpInstanceSchema>;
export type CliSettings = z.output<typeof cliSchema>;
export type Algorithm = (typeof ALGORITHMS)[number];
export type IpfeName = (typeof IPFE_NAMES)[number];
export type DsconfigSettings = z.output<typeof dsconfigSchema>;
