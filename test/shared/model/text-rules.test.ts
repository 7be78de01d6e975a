// Every field of the text rule table (shared/model/text-rules.ts), tried through validate with
// what may never reach a config, a command or the wire: each refused at the field's
// file:line:col, naming the field, without echoing the value.
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseWorkspace } from '../../../shared/model/validate';
import { TEXT_FIELDS, TEXT_RULES, httpTarget, shownText, type TextRuleName } from '../../../shared/model/text-rules';

/** A value each rule accepts. */
const GOOD: Record<TextRuleName, string> = {
  description: 'rack 4',
  workspaceName: 'site',
  httpPath: '/status',
  httpExpect: 'OK',
  httpHost: 'www.example.test',
  tlsServerName: 'secure.example.test',
  ldapText: 'cn=monitor',
  dnsQuery: 'example.test',
  radiusUsername: 'probe',
  trackScript: 'pidof haproxy',
  cliAnswer: 'y',
  cliCommand: 'show running-config',
  appliancePath: '/etc/lb.cfg',
  remoteCommand: 'haproxy -c -f {file}',
};

/** A workspace where every path of the table exists (index 0, key `cn`). */
function base(): Record<string, unknown> {
  return {
    lbdesk: 1, name: GOOD.workspaceName, description: GOOD.description,
    servers: [{ name: 'web1', address: '192.0.2.21', description: GOOD.description }],
    groups: [{
      name: 'web', description: GOOD.description, members: [{ server: 'web1', port: 443 }],
      healthCheck: {
        type: 'https',
        http: { path: GOOD.httpPath, expect: GOOD.httpExpect, host: GOOD.httpHost },
        tls: { serverName: GOOD.tlsServerName },
        ldap: { baseDn: GOOD.ldapText, filter: '(objectClass=*)', bindDn: 'cn=probe', expect: { cn: 'monitor' } },
        dns: { query: GOOD.dnsQuery },
        radius: { secret: 'radius-secret', username: GOOD.radiusUsername },
      },
    }],
    services: [{ name: 'vip', address: '192.0.2.10', port: 443, group: 'web', description: GOOD.description }],
    targetSets: [{ number: 1, address: '203.0.113.50', ports: [3868], description: GOOD.description, servers: [{ address: '198.51.100.81', description: GOOD.description }] }],
    appliances: [{
      name: 'box', host: '192.0.2.2', driver: 'cli', template: 'box.liquid', description: GOOD.description,
      configPath: GOOD.appliancePath, validateCommand: GOOD.remoteCommand, reloadCommand: GOOD.remoteCommand,
      cli: { mode: 'both', uploadPath: GOOD.appliancePath, pullCommand: GOOD.cliCommand, confirmAnswer: GOOD.cliAnswer },
      dsconfig: { serverRoot: GOOD.appliancePath, bindDn: GOOD.ldapText },
    }],
    pairs: [{ name: 'edge', description: GOOD.description, interface: 'eth0', trackScript: { command: GOOD.trackScript } }],
  };
}

function segments(path: string): (string | number)[] {
  return path.split('.').flatMap((p) => (p === '{}' ? ['cn'] : p.endsWith('[]') ? [p.slice(0, -2), 0] : [p]));
}

function withValue(path: string, value: string): string {
  const data = base();
  const segs = segments(path);
  let cur = data as Record<string | number, unknown>;
  for (const s of segs.slice(0, -1)) cur = cur[s] as Record<string | number, unknown>;
  cur[segs[segs.length - 1]!] = value;
  return stringify(data);
}

function problemsAt(path: string, value: string) {
  const text = withValue(path, value);
  const shown = path.replace(/\[\]/g, '[0]').replace('.{}', '.cn');
  return { text, found: parseWorkspace(text, 'ws.yaml').problems.filter((p) => p.path === shown && p.severity === 'error') };
}

describe('the text rule table, field by field, through validate', () => {
  it('names every rule used, and the schema applies every row', () => {
    expect(new Set(TEXT_FIELDS.map((f) => f.rule))).toEqual(new Set(Object.keys(TEXT_RULES)));
    for (const f of TEXT_FIELDS) expect(problemsAt(f.path, GOOD[f.rule]).found, f.path).toEqual([]);
  });

  describe.each(TEXT_FIELDS.map((f) => [f.path, f.rule] as const))('%s (%s)', (path, rule) => {
    const good = GOOD[rule];
    const refused = (value: string, why: RegExp) => {
      const { text, found } = problemsAt(path, value);
      expect(found, JSON.stringify(value.slice(0, 40))).toHaveLength(1);
      const p = found[0]!;
      expect(p.message).toMatch(why);
      // At the value's own line: the key is written there.
      const key = String(segments(path).at(-1));
      expect(text.split('\n')[p.line - 1]).toContain(`${key}:`);
      expect(p.col).toBeGreaterThan(1);
      // The refusal never repeats a long or hostile value.
      expect(p.message.length).toBeLessThan(200);
    };

    it('refuses a line break, a carriage return, a NUL, a tab and a C1 control', () => {
      refused(`${good}\nwrite erase`, /must be one line of text: a line break \(LF\) is not allowed here/);
      refused(`${good}\r`, /a carriage return \(CR\)/);
      refused(`${good}\0`, /a NUL/);
      refused(`${good}\tx`, /a tab/);
      refused(`${good}\u0085`, /a control character \(U\+0085\)/);
    });

    it('takes a quote only where its target can carry one', () => {
      const { found } = problemsAt(path, `${good}"x`);
      if (TEXT_RULES[rule].refuse?.chars.test('"')) expect(found.map((p) => p.message)).toEqual([expect.stringMatching(/^must not contain .*quote/)]);
      else expect(found).toEqual([]);
    });

    it(`refuses more than ${TEXT_RULES[rule].maxBytes} bytes, counted in UTF-8`, () => {
      const max = TEXT_RULES[rule].maxBytes;
      refused(good + 'a'.repeat(100_000), new RegExp(`^must be at most ${max} bytes \\(UTF-8\\), not ${good.length + 100_000}$`));
      if (rule !== 'dnsQuery') {
        expect(problemsAt(path, good + 'a'.repeat(max - good.length)).found).toEqual([]);
        // "é" is two bytes: the bound is bytes on the wire, not characters.
        refused(good + 'é'.repeat(Math.ceil((max - good.length + 1) / 2)), /^must be at most \d+ bytes \(UTF-8\)/);
      }
    });
  });
});

describe('per-field rules beyond one line', () => {
  it('dsconfig.hostname (dsconfig --hostname on the box) is an address or a host name: no control character, quote or long value', () => {
    const at = (h: string) => problemsAt('appliances[].dsconfig.hostname', h).found.map((p) => p.message);
    expect(at('ldap.example.test')).toEqual([]);
    expect(at('192.0.2.7')).toEqual([]);
    for (const bad of ['ldap\nwrite erase', 'ldap\r', 'ldap\0', 'ldap"x', `${'a'.repeat(100_000)}.test`]) {
      expect(at(bad), JSON.stringify(bad.slice(0, 20))).toEqual(['must be an IP address or a host name']);
    }
  });

  it('a DNS query: labels of at most 63 bytes, 253 in all, none empty', () => {
    const at = (q: string) => problemsAt('groups[].healthCheck.dns.query', q).found.map((p) => p.message);
    expect(at(`${'a'.repeat(63)}.test`)).toEqual([]);
    expect(at(`${'a'.repeat(64)}.test`)).toEqual(['must be a DNS name: each label at most 63 bytes (one has 64)']);
    expect(at(`${'a'.repeat(300)}.test`)).toEqual(['must be at most 254 bytes (UTF-8), not 305']);
    const three = Array(3).fill('a'.repeat(63)).join('.');
    expect(at(`${three}.${'b'.repeat(61)}`)).toEqual([]);
    expect(at(`${three}.${'b'.repeat(61)}.`)).toEqual([]);
    expect(at(`${three}.${'b'.repeat(62)}`)).toEqual(['must be a DNS name of at most 253 bytes']);
    expect(at('a..test')).toEqual(['must be a DNS name: a label is empty (two dots, or a dot first)']);
    expect(at('example.test.')).toEqual([]);
    expect(at('.')).toEqual([]);
    expect(at('a b.test')).toEqual(['must not contain a space, a quote or a brace']);
  });

  it('keepalived words refuse braces; names refuse spaces', () => {
    expect(problemsAt('pairs[].trackScript.command', 'true }').found.map((p) => p.message)).toEqual(['must not contain a double quote or a brace ("{", "}")']);
    expect(problemsAt('groups[].healthCheck.http.host', 'virtualhost }').found.map((p) => p.message)).toEqual(['must not contain a space, a quote or a brace']);
    expect(problemsAt('groups[].healthCheck.http.path', '/a b').found).toEqual([]);
  });

  it('one encoder for an HTTP target; values shown on one line and cut', () => {
    expect(httpTarget('/status?x=1 HTTP/1.0\r\nX: 1')).toBe('/status?x=1%20HTTP/1.0%0D%0AX:%201');
    expect(httpTarget('/a"{b}é')).toBe('/a%22%7Bb%7D%C3%A9');
    expect(httpTarget('/\ud800')).toBe('/%EF%BF%BD');
    expect(shownText('a\nb')).toBe('"a\\nb"');
    expect(shownText('x'.repeat(100_000))).toBe(`"${'x'.repeat(80)}…"`);
  });
});
