// Lines that change by themselves (a render timestamp, counters) must not make a config "changed".
import { bounded } from '../drivers/pattern-bound';

/** Each match of a volatile pattern is replaced by `<volatile>`, line by line. */
export function maskVolatile(text: string, patterns: RegExp[]): string {
  if (patterns.length === 0) return text;
  const global = patterns.map((p) => new RegExp(p.source, p.flags.includes('g') ? p.flags : `${p.flags}g`));
  return bounded(patterns, 'masking volatile lines', () => text.split('\n').map((line) => global.reduce((l, re) => l.replace(re, '<volatile>'), line)).join('\n'));
}
