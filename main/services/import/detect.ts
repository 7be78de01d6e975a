// Which driver a config looks like, for the import dialog's suggestion: its first statement,
// else its file name. Only a suggestion: the import itself says when the file is not that format.
import { SECTION_KEYWORDS } from './haproxy-parse';
import { TOP_LEVEL } from './keepalived-parse';
import type { ImportDriver } from './types';

export function detectDriver(head: Uint8Array, name: string): ImportDriver | undefined {
  const text = new TextDecoder('utf-8').decode(head);
  for (const raw of text.split('\n')) {
    const line = raw.replace(/[#!].*$/, '').trim();
    if (!line) continue;
    const first = line.split(/[\s{]+/)[0]!;
    if (SECTION_KEYWORDS.has(first)) return 'haproxy';
    if (TOP_LEVEL.has(first)) return 'keepalived';
    break;
  }
  if (/keepalived/i.test(name)) return 'keepalived';
  if (/haproxy|\.cfg$/i.test(name)) return 'haproxy';
  return undefined;
}
