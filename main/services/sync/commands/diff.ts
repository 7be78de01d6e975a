// Diff of a vendor appliance: its running config against the rendered config section, both
// reduced to what matters — no comments, no blank lines, volatile lines (clock, uptime,
// temperatures, counters) dropped — so an unchanged appliance diffs empty.
import { createTwoFilesPatch } from 'diff';
import type { DiffReport } from '../../../../shared/api/sync';
import { DEFAULT_COMMENT } from '../../drivers/box-patterns';
import { bounded } from '../../drivers/pattern-bound';
import { redact } from './redact';
import { splitSections } from '../../drivers/template/sections';
import { cliWhere, type CliTarget } from './target';
import { sha256 } from '../../hash';


/** Each line: dropped when a volatile pattern covers all of it, else its volatile parts masked. */
export function normalizeCli(text: string, volatile: RegExp[], comment: RegExp = DEFAULT_COMMENT): string {
  const global = volatile.map((re) => new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`));
  return bounded(volatile, 'masking the cli.volatile lines', () => {
    const out: string[] = [];
    for (const raw of text.split('\n')) {
      let line = raw.replace(/\r$/, '').replace(/\s+$/, '');
      if (line.trim() === '' || comment.test(line)) continue;
      if (volatile.some((re) => re.exec(line)?.[0] === line)) continue;
      for (const re of global) line = line.replace(re, '<volatile>');
      out.push(line);
    }
    return out.length ? `${out.join('\n')}\n` : '';
  });
}

export function diffCliTexts(target: CliTarget, current: Buffer | undefined, rendered: string): DiffReport {
  const next = splitSections(rendered).configText;
  const where = cliWhere(target);
  const a = current === undefined ? '' : normalizeCli(current.toString('utf8'), target.volatile, target.patterns.comment);
  const b = normalizeCli(next, target.volatile, target.patterns.comment);
  const changed = current === undefined || a !== b;
  const patch = changed
    ? createTwoFilesPatch(current === undefined ? '/dev/null' : `a/${where}`, `b/${where}`, redact(a), redact(b), current === undefined ? undefined : 'appliance', 'rendered')
    : '';
  return {
    appliance: target.appliance, configPath: where, changed, patch, hash: sha256(next),
    ...(current ? { remoteHash: sha256(current) } : {}),
  };
}
