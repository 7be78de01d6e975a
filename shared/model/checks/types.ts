// The shape of a check type's descriptor (descriptors.ts holds one per type).

/** How a reply is read: an RFC 959 numeric reply (`220 text`, or `220-` lines up to `220 text`),
 * one line, or lines up to the one starting with this tag. */
export type ReplyShape = 'numeric' | 'line' | { tagged: string };

/** A Layer 7 TCP dialogue as data: what is sent, what the answer must be, how to leave. */
export interface Dialogue {
  /** Sent first; absent: the server speaks first (a greeting). */
  request?: string;
  /** How the first reply is read; `bytes`: any bytes at all (TELNET), `status`: an RTSP/HTTP status line. */
  reply: ReplyShape | 'bytes' | 'status';
  /** A first reply that passes: one of these reply codes, or a line matching (absent: any reply). */
  pass?: { codes: readonly string[] } | { line: RegExp } | { status: readonly [number, number] };
  /** What the server should say, for the reason when it doesn't. */
  expects: string;
  /** Said after a passing reply to leave politely; its answer is evidence, never a verdict. */
  quit?: { send: string; reply: ReplyShape };
}

/** One option of a check (a key of its option block), as the schema takes it and the editor shows it. */
export interface OptionField {
  label: string;
  /** text: a string; choice: one of `choices`; flag: a boolean; map: key → value (edited in the YAML only). */
  kind: 'text' | 'choice' | 'flag' | 'map';
  choices?: readonly string[];
  /** The schema's default when the key is absent. */
  default?: string | boolean;
  placeholder?: string;
  hint?: string;
  /** Shown in a monospace font (paths, names, DNs). */
  mono?: boolean;
  /** The block is not valid without it; the words say what it is, for "a DNS check needs dns.query (…)". */
  required?: string;
  /** It names a secret in the secret store; `sentWith`: the field without which the secret is never sent. */
  secret?: { sentWith?: string };
}

/** An option block (`http:`, `tls:` …): the settings some check types take. */
export interface OptionBlockDescriptor {
  fields: Readonly<Record<string, OptionField>>;
}

export interface CheckDescriptor {
  /** The protocol's name in messages: HTTP, IMAP4. */
  label: string;
  /** The layer of an explicit check of this type; absent for auto (the port decides). */
  layer?: 4 | 7;
  /** What the check runs over; absent: no TCP or UDP port (ping is ICMP, none runs nothing, auto decides). */
  transport?: 'tcp' | 'udp';
  /** The port it dials when a member has none. */
  port?: number;
  /** auto picks this check for `port` (the ADX's well-known port); https shares 443 with ssl, which has it. */
  byPort?: boolean;
  /** `protocol: <type>` may name it for auto (the ADX `protocol` command). */
  protocol?: boolean;
  /** Option blocks that configure it, in the order the editor shows them. */
  options: readonly OptionBlockName[];
  /** The editor's hint for the type (default: "type: Layer 7 LABEL check."). */
  help?: string;
  /** Its send/expect dialogue, for the Layer 7 TCP protocols that have one. */
  dialogue?: Dialogue;
}

export type OptionBlockName = 'http' | 'tls' | 'ldap' | 'dns' | 'radius';
