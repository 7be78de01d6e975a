// The check descriptors and what is derived from them: the tables as they were written out by
// hand before (pinned here), each descriptor consistent in itself, and the schema's option
// blocks field for field the descriptors' (keys, choices, defaults, what is required).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CHECKS, CHECK_TYPES, DEFAULT_PORTS, L7_PROTOCOLS, OPTION_BLOCKS, OPTION_FIELDS, OPTION_TYPES, REQUIRED_FIELDS, SECRET_FIELDS,
  UDP_PROTOCOLS, WELL_KNOWN_TCP, WELL_KNOWN_UDP, checkHelp, checkTransport, layerOf, secretsNamed, secretsSent, type CheckDescriptor,
} from '../../../shared/model/checks';
import { healthCheckSchema } from '../../../shared/model/schema';

const all = CHECKS as Record<string, CheckDescriptor>;

describe('tables derived from the check descriptors', () => {
  it('are the tables that were written by hand', () => {
    expect(CHECK_TYPES).toEqual(['auto', 'none', 'ping', 'tcp', 'udp', 'http', 'https', 'ssl', 'ftp', 'smtp', 'pop3', 'imap4', 'nntp', 'telnet', 'ldap', 'dns', 'radius', 'rtsp', 'mms', 'pnm']);
    expect(L7_PROTOCOLS).toEqual(['ftp', 'http', 'https', 'imap4', 'ldap', 'mms', 'nntp', 'pnm', 'pop3', 'rtsp', 'smtp', 'ssl', 'telnet', 'dns', 'radius']);
    expect(WELL_KNOWN_TCP).toEqual({ 21: 'ftp', 23: 'telnet', 25: 'smtp', 80: 'http', 110: 'pop3', 119: 'nntp', 143: 'imap4', 389: 'ldap', 443: 'ssl', 554: 'rtsp', 1755: 'mms', 7070: 'pnm' });
    expect(WELL_KNOWN_UDP).toEqual({ 53: 'dns', 1812: 'radius' });
    expect([...UDP_PROTOCOLS]).toEqual(['dns', 'radius']);
    expect(OPTION_TYPES).toEqual({ http: ['http', 'https'], tls: ['https', 'ssl'], ldap: ['ldap'], dns: ['dns'], radius: ['radius'] });
    expect(DEFAULT_PORTS).toEqual({ http: 80, https: 443, ssl: 443, ftp: 21, smtp: 25, pop3: 110, imap4: 143, nntp: 119, telnet: 23, rtsp: 554, mms: 1755, pnm: 7070, ldap: 389, dns: 53, radius: 1812 });
    const four = ['none', 'ping', 'tcp', 'udp'];
    for (const t of CHECK_TYPES) if (t !== 'auto') expect(layerOf(t), t).toBe(four.includes(t) ? 4 : 7);
    expect(CHECK_TYPES.filter((t) => checkTransport(t) === 'udp')).toEqual(['udp', 'dns', 'radius']);
    expect(CHECK_TYPES.filter((t) => checkTransport(t) === undefined)).toEqual(['auto', 'none', 'ping']);
    expect(SECRET_FIELDS.map((f) => `${f.block}.${f.key}`)).toEqual(['ldap.bindSecret', 'radius.secret']);
    expect(REQUIRED_FIELDS.map((r) => `${r.type}: ${r.field.block}.${r.field.key}`)).toEqual(['dns: dns.query', 'radius: radius.secret']);
    expect(checkHelp('tcp')).toBe('tcp: a Layer 4 TCP handshake.');
    expect(checkHelp('imap4')).toBe('imap4: Layer 7 IMAP4 check.');
    expect(checkHelp('gopher')).toBe('gopher: Layer 7 GOPHER check.');
  });

  it('agree within each descriptor', () => {
    const ports = new Map<string, string>();
    for (const t of CHECK_TYPES) {
      const d = all[t]!;
      if (d.byPort) {
        expect(d.port, `${t}: byPort without a port`).toBeDefined();
        const key = `${d.transport}/${d.port}`;
        expect(ports.get(key), `${t} and ${ports.get(key)} both claim ${key}`).toBeUndefined();
        ports.set(key, t);
      }
      if (d.protocol) expect([d.layer, d.transport !== undefined], `${t}: a protocol is a Layer 7 check over a port`).toEqual([7, true]);
      if (d.port !== undefined) expect(d.transport, `${t}: a port needs a transport`).toBeDefined();
      if (d.dialogue) expect(d.transport, `${t}: dialogues run over TCP`).toBe('tcp');
      if (t === 'auto') expect(d.layer).toBeUndefined();
      else expect(d.layer, t).toBeDefined();
      for (const b of d.options) expect(Object.keys(OPTION_BLOCKS), t).toContain(b);
    }
  });

  it('are the schema option blocks, field for field', () => {
    const blocks = healthCheckSchema.shape;
    for (const [block, desc] of Object.entries(OPTION_BLOCKS)) {
      const schema = (blocks[block as keyof typeof blocks] as z.ZodOptional<z.ZodObject>).unwrap();
      expect(Object.keys(schema.shape), block).toEqual(Object.keys(desc.fields));
      // What the schema fills in for an empty block is each field's default.
      const required = OPTION_FIELDS.filter((f) => f.block === block && f.required);
      const minimal = Object.fromEntries(required.map((f) => [f.key, 'x']));
      const parsed = schema.parse(minimal) as Record<string, unknown>;
      for (const f of OPTION_FIELDS.filter((x) => x.block === block)) {
        if (f.required) {
          expect(schema.safeParse({ ...minimal, [f.key]: undefined }).success, `${block}.${f.key} is required`).toBe(false);
          continue;
        }
        expect(parsed[f.key], `${block}.${f.key} default`).toEqual(f.default);
        if (f.kind === 'choice') {
          for (const c of f.choices!) expect(schema.safeParse({ ...minimal, [f.key]: c }).success, `${block}.${f.key}: ${c}`).toBe(true);
          expect(schema.safeParse({ ...minimal, [f.key]: 'not-a-choice' }).success).toBe(false);
        }
        if (f.kind === 'flag') expect(schema.safeParse({ ...minimal, [f.key]: 'yes' }).success).toBe(false);
      }
    }
  });

  it('say which secrets a check holds and which it sends', () => {
    const hc = { ldap: { bindSecret: 'ldap-pw' }, radius: { secret: 'rad' } };
    expect(secretsNamed(hc)).toEqual(['ldap-pw', 'rad']);
    expect(secretsSent('ldap', hc)).toEqual([]);
    expect(secretsSent('ldap', { ldap: { bindDn: 'cn=x', bindSecret: 'ldap-pw' } })).toEqual(['ldap-pw']);
    expect(secretsSent('radius', hc)).toEqual(['rad']);
    expect(secretsSent('http', hc)).toEqual([]);
  });
});
