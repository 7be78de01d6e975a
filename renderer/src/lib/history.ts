// The words of a push history row, the same in the Appliances push panel and the History section.
import type { PushHistoryEntry } from '../../../shared/api/contract';

/** `confirmed` (commit-confirmed and kept), `applied` (no timer), `original` (the box's own file before lbdesk). */
export function historyOutcome(h: PushHistoryEntry): string {
  if (h.kind === 'original') return 'original: the box\'s file before lbdesk';
  let word: string = h.outcome;
  if (h.outcome === 'applied' && h.confirm === 'confirmed') word = 'confirmed';
  else if (h.outcome === 'applied' && h.confirm === 'pending') word = 'applied, waiting for Confirm';
  else if (h.confirm === 'rolled-back' || h.outcome === 'rolled-back') word = 'rolled back by the box\'s timer';
  return h.kind === 'restore' ? `restore · ${word}` : word;
}
