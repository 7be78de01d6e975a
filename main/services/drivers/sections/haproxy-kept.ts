// What a haproxy.cfg lbdesk keeps part of says about the workspace's groups: which of the site's
// own frontends and listens send to each (on which address), and each backend's `balance`.
import { parseHaproxy, type CfgSection } from '../../import/haproxy-parse';

export interface KeptSections {
  frontends: { name: string; kind: string; line: number; binds: string[]; uses: { group: string; how: string }[] }[];
  balance: Record<string, string>;
}

const words = (s: CfgSection, head: string) => s.body.map((l) => l.words.map((w) => w.text)).filter((w) => w[0] === head);

/** `groups`, `services`: the workspace's names (a frontend named as a service is lbdesk's own, not kept). */
export function haproxyKept(text: string, groups: Set<string>, services: Set<string>): KeptSections {
  let sections: CfgSection[];
  try {
    sections = parseHaproxy(text, 'haproxy.cfg').sections;
  } catch {
    return { frontends: [], balance: {} };
  }
  const balance: Record<string, string> = {};
  const frontends: KeptSections['frontends'] = [];
  for (const s of sections) {
    if ((s.kind === 'backend' || s.kind === 'listen') && groups.has(s.name)) {
      const b = words(s, 'balance')[0];
      if (b) balance[s.name] = b.slice(1).join(' ');
    }
    if ((s.kind !== 'frontend' && s.kind !== 'listen') || services.has(s.name)) continue;
    const uses: { group: string; how: string }[] = [];
    for (const w of words(s, 'use_backend')) if (w[1] && groups.has(w[1])) uses.push({ group: w[1], how: `use_backend ${w.slice(2).join(' ')}`.trim() });
    for (const w of words(s, 'default_backend')) if (w[1] && groups.has(w[1])) uses.push({ group: w[1], how: 'default_backend' });
    if (s.kind === 'listen' && groups.has(s.name) && words(s, 'server').length) uses.push({ group: s.name, how: 'its own servers' });
    frontends.push({ name: s.name, kind: s.kind, line: s.header.index + 1, binds: words(s, 'bind').map((w) => w.slice(1).filter((x) => !/^(crt|ca-file|crl-file|key)$/.test(x)).join(' ').replace(/ \/\S+/g, '')), uses });
  }
  return { frontends, balance };
}
