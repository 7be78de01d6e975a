// One descriptor per check type: every fact about a check protocol that the model, the probes,
// the drivers and the editor use. The other tables (tables.ts) are derived from these; each
// driver's own mapping is a complete Record over the types, so a new type here does not compile
// until every driver says what it does with it (docs/developers.md, "Add a check type").
import type { CheckDescriptor, OptionBlockDescriptor, OptionBlockName } from './types';

/** In the order the editor offers them (and z.enum names them in messages). */
export const CHECK_TYPES = [
  'auto', 'none', 'ping', 'tcp', 'udp', 'http', 'https', 'ssl', 'ftp', 'smtp', 'pop3', 'imap4',
  'nntp', 'telnet', 'ldap', 'dns', 'radius', 'rtsp', 'mms', 'pnm',
] as const;
export type CheckType = (typeof CHECK_TYPES)[number];
/** A check as it runs: auto always resolves to one of these. */
export type ResolvedType = Exclude<CheckType, 'auto'>;

const QUIT = 'QUIT\r\n';

export const CHECKS = {
  auto: {
    label: 'auto', options: [],
    help: 'auto: Layer 7 for well-known ports (HTTP 80, LDAP 389 …) or a named protocol, else Layer 4 (Brocade ADX rule).',
  },
  none: { label: 'none', layer: 4, options: [], help: 'none: not checked; members count as available.' },
  ping: { label: 'ping', layer: 4, options: [], help: 'ping: ICMP echo (the Px default when nothing is configured).' },
  tcp: { label: 'TCP', layer: 4, transport: 'tcp', options: [], help: 'tcp: a Layer 4 TCP handshake.' },
  udp: { label: 'UDP', layer: 4, transport: 'udp', options: [], help: 'udp: Layer 4 UDP; silence is a pass, an ICMP port-unreachable a failure.' },
  http: { label: 'HTTP', layer: 7, transport: 'tcp', port: 80, byPort: true, protocol: true, options: ['http'] },
  https: { label: 'HTTPS', layer: 7, transport: 'tcp', port: 443, protocol: true, options: ['http', 'tls'] },
  ssl: { label: 'SSL', layer: 7, transport: 'tcp', port: 443, byPort: true, protocol: true, options: ['tls'] },
  ftp: {
    label: 'FTP', layer: 7, transport: 'tcp', port: 21, byPort: true, protocol: true, options: [],
    dialogue: { reply: 'numeric', pass: { codes: ['220'] }, expects: '220 greeting', quit: { send: QUIT, reply: 'numeric' } },
  },
  smtp: {
    label: 'SMTP', layer: 7, transport: 'tcp', port: 25, byPort: true, protocol: true, options: [],
    dialogue: { reply: 'numeric', pass: { codes: ['220'] }, expects: '220 greeting', quit: { send: QUIT, reply: 'numeric' } },
  },
  pop3: {
    label: 'POP3', layer: 7, transport: 'tcp', port: 110, byPort: true, protocol: true, options: [],
    dialogue: { reply: 'line', pass: { line: /^\+OK/ }, expects: '+OK greeting', quit: { send: QUIT, reply: 'line' } },
  },
  imap4: {
    label: 'IMAP4', layer: 7, transport: 'tcp', port: 143, byPort: true, protocol: true, options: [],
    dialogue: {
      reply: 'line', pass: { line: /^\* (OK|PREAUTH)\b/i }, expects: '* OK or * PREAUTH greeting',
      // "* BYE ..." then "a1 OK LOGOUT completed".
      quit: { send: 'a1 LOGOUT\r\n', reply: { tagged: 'a1' } },
    },
  },
  nntp: {
    label: 'NNTP', layer: 7, transport: 'tcp', port: 119, byPort: true, protocol: true, options: [],
    dialogue: { reply: 'numeric', pass: { codes: ['200', '201'] }, expects: '200 or 201 greeting', quit: { send: QUIT, reply: 'numeric' } },
  },
  telnet: {
    label: 'TELNET', layer: 7, transport: 'tcp', port: 23, byPort: true, protocol: true, options: [],
    // No greeting code: a live telnetd opens with option negotiation (IAC …) or a login prompt.
    dialogue: { reply: 'bytes', expects: 'option negotiation or a prompt' },
  },
  ldap: { label: 'LDAP', layer: 7, transport: 'tcp', port: 389, byPort: true, protocol: true, options: ['ldap'] },
  dns: { label: 'DNS', layer: 7, transport: 'udp', port: 53, byPort: true, protocol: true, options: ['dns'] },
  radius: { label: 'RADIUS', layer: 7, transport: 'udp', port: 1812, byPort: true, protocol: true, options: ['radius'] },
  rtsp: {
    label: 'RTSP', layer: 7, transport: 'tcp', port: 554, byPort: true, protocol: true, options: [],
    // RFC 2326: the request's lines, each ending CRLF; the sender adds the blank line that ends it.
    dialogue: { request: 'OPTIONS * RTSP/1.0\r\nCSeq: 1\r\n', reply: 'status', pass: { status: [200, 299] }, expects: '2xx' },
  },
  mms: { label: 'MMS', layer: 7, transport: 'tcp', port: 1755, byPort: true, protocol: true, options: [] },
  pnm: { label: 'PNM', layer: 7, transport: 'tcp', port: 7070, byPort: true, protocol: true, options: [] },
} as const satisfies Record<CheckType, CheckDescriptor>;

const KEYCHAIN = 'in the OS keychain — never';

/** The option blocks, each field as the schema (schema.ts) takes it and the editor shows it. */
export const OPTION_BLOCKS = {
  http: {
    fields: {
      path: { label: 'Path', kind: 'text', placeholder: 'HEAD / when empty', mono: true, hint: 'GET this object over HTTP/1.0; without a path the check is HEAD / and any answer passes (Px).' },
      expect: { label: 'Expect', kind: 'text', hint: 'Must occur within the first 1000 bytes of the body (Px).' },
      host: { label: 'Host header', kind: 'text', mono: true },
    },
  },
  tls: {
    fields: {
      serverName: { label: 'Server name (SNI)', kind: 'text', mono: true },
      verify: { label: 'Verify the certificate', kind: 'flag', default: false },
    },
  },
  ldap: {
    fields: {
      baseDn: { label: 'Base DN', kind: 'text', mono: true, placeholder: '(root DSE)', default: '' },
      scope: { label: 'Scope', kind: 'choice', choices: ['base', 'one', 'sub'], default: 'base' },
      filter: { label: 'Filter', kind: 'text', mono: true, placeholder: '(objectClass=*)', default: '(objectClass=*)' },
      bindDn: { label: 'Bind DN', kind: 'text', mono: true, placeholder: 'anonymous' },
      bindSecret: { label: 'Bind secret name', kind: 'text', hint: `Name of the password ${KEYCHAIN} the password itself.`, secret: { sentWith: 'bindDn' } },
      /** attribute -> value that must be present in the first returned entry. */
      expect: { label: 'Expected attributes', kind: 'map' },
    },
  },
  dns: {
    fields: {
      query: { label: 'Query name', kind: 'text', mono: true, required: 'the name to look up' },
      recordType: { label: 'Record type', kind: 'choice', choices: ['A', 'AAAA', 'CNAME', 'MX', 'NS', 'PTR', 'SOA', 'SRV', 'TXT'], default: 'A' },
    },
  },
  radius: {
    fields: {
      secret: { label: 'Shared secret name', kind: 'text', required: 'the name of a stored secret', hint: `Name of the secret ${KEYCHAIN} the secret itself.`, secret: {} },
      mode: { label: 'Mode', kind: 'choice', choices: ['status-server', 'access-request'], default: 'status-server' },
      username: { label: 'User name', kind: 'text' },
    },
  },
} as const satisfies Record<OptionBlockName, OptionBlockDescriptor>;
