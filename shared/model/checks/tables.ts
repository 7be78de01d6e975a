// The tables the model, the probes and the editor read, each derived from the descriptors.
import { CHECKS, CHECK_TYPES, OPTION_BLOCKS, type CheckType, type ResolvedType } from './descriptors';
import type { CheckDescriptor, OptionBlockName, OptionField } from './types';

type Descriptors = typeof CHECKS;
const descriptor = (t: CheckType): CheckDescriptor => CHECKS[t];

/** Checks a protocol name may select for `auto` (the ADX `protocol` command). */
export type L7Protocol = { [K in CheckType]: Descriptors[K] extends { protocol: true } ? K : never }[CheckType];
/** TCP protocols, then UDP ones, each in alphabetical order. */
export const L7_PROTOCOLS = CHECK_TYPES.filter((t): t is L7Protocol => descriptor(t).protocol === true)
  .sort((a, b) => (descriptor(a).transport === descriptor(b).transport ? (a < b ? -1 : 1) : descriptor(a).transport === 'tcp' ? -1 : 1)) as unknown as readonly [L7Protocol, ...L7Protocol[]];

function byPort(transport: 'tcp' | 'udp'): Readonly<Record<number, L7Protocol>> {
  const out: Record<number, L7Protocol> = {};
  for (const t of L7_PROTOCOLS) {
    const d = descriptor(t);
    if (d.byPort && d.transport === transport && d.port !== undefined) out[d.port] = t;
  }
  return out;
}
/** Ports the Brocade ADX knows by name (seed 000): a TCP port here gets its Layer 7 check. */
export const WELL_KNOWN_TCP = byPort('tcp');
/** UDP ports with a Layer 7 check; every other UDP port gets the L4 UDP check. */
export const WELL_KNOWN_UDP = byPort('udp');
/** Protocols whose check runs over UDP. */
export const UDP_PROTOCOLS: ReadonlySet<L7Protocol> = new Set(L7_PROTOCOLS.filter((t) => descriptor(t).transport === 'udp'));

export type OptionBlock = OptionBlockName;
export const OPTION_BLOCK_NAMES = Object.keys(OPTION_BLOCKS) as OptionBlock[];
/** Check types each option block configures. */
export const OPTION_TYPES: Readonly<Record<OptionBlock, readonly CheckType[]>> = {
  http: typesOf('http'), tls: typesOf('tls'), ldap: typesOf('ldap'), dns: typesOf('dns'), radius: typesOf('radius'),
};
function typesOf(block: OptionBlock): CheckType[] {
  return CHECK_TYPES.filter((t) => descriptor(t).options.includes(block));
}

/** Layer of an explicit check type. */
export function layerOf(type: ResolvedType): 4 | 7 {
  return CHECKS[type].layer;
}

/** What an explicit check runs over: undefined for ping (ICMP), none and auto. */
export function checkTransport(type: CheckType): 'tcp' | 'udp' | undefined {
  return descriptor(type).transport;
}

/** The port a check dials when the member has none (the ADX's well-known ports). */
export const DEFAULT_PORTS: Readonly<Partial<Record<ResolvedType, number>>> = Object.fromEntries(
  CHECK_TYPES.flatMap((t) => (descriptor(t).port === undefined ? [] : [[t, descriptor(t).port]])),
);

export function checkLabel(type: CheckType): string {
  return descriptor(type).label;
}

/** The editor's hint for a type (a value not among the types gets the generic words). */
export function checkHelp(type: string): string {
  const d = (CHECKS as Record<string, CheckDescriptor>)[type];
  return d?.help ?? `${type}: Layer 7 ${d?.label ?? type.toUpperCase()} check.`;
}

export interface BlockField extends OptionField { block: OptionBlock; key: string }
/** Every option field, block by block, in the editor's order. */
export const OPTION_FIELDS: readonly BlockField[] = OPTION_BLOCK_NAMES.flatMap((block) =>
  Object.entries(OPTION_BLOCKS[block].fields as Record<string, OptionField>).map(([key, f]) => ({ ...f, block, key })),
);
export const blockFields = (block: OptionBlock): BlockField[] => OPTION_FIELDS.filter((f) => f.block === block);

/** The fields that name a secret in the secret store (`ldap.bindSecret`, `radius.secret`). */
export const SECRET_FIELDS = OPTION_FIELDS.filter((f) => f.secret !== undefined);

type Blocks = Partial<Record<OptionBlock, Record<string, unknown> | undefined>>;

/** Every secret name a check's settings hold, whatever type runs. */
export function secretsNamed(settings: Blocks | undefined): string[] {
  return SECRET_FIELDS.map((f) => settings?.[f.block]?.[f.key]).filter((s): s is string => typeof s === 'string');
}

/** The secret names a check of `type` sends with these settings (LDAP's only with a bind DN). */
export function secretsSent(type: CheckType, settings: Blocks | undefined): string[] {
  const blocks = descriptor(type).options;
  return SECRET_FIELDS.filter((f) => blocks.includes(f.block) && (f.secret!.sentWith === undefined || Boolean(settings?.[f.block]?.[f.secret!.sentWith])))
    .map((f) => settings?.[f.block]?.[f.key])
    .filter((s): s is string => typeof s === 'string' && s !== '');
}

/** For each type, the fields its check cannot run without: `a DNS check needs dns.query (…)`. */
export const REQUIRED_FIELDS: readonly { type: CheckType; field: BlockField }[] = CHECK_TYPES.flatMap((type) =>
  OPTION_FIELDS.filter((f) => f.required !== undefined && descriptor(type).options.includes(f.block)).map((field) => ({ type, field })),
);
