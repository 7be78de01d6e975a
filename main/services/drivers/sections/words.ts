// Word-level edits of one haproxy.cfg line: change `weight 10` to `weight 20` and leave the rest
// of the line (spacing, order, other options, trailing comment) exactly as it was.
import { splitWords, type Word } from '../../import/haproxy-parse';

function commentStart(raw: string, words: Word[]): number {
  const last = words[words.length - 1];
  const body = raw.replace(/\r$/, '');
  return last ? last.end + (body.slice(last.end).match(/^[ \t]*/)![0].length) : body.length;
}

/** Sets `key value` (replacing the value where the key is, else appending the pair). */
export function setOption(raw: string, key: string, value: string, from = 0): string {
  const words = splitWords(raw);
  for (let i = from; i < words.length - 1; i++) {
    if (words[i]!.text === key) {
      const v = words[i + 1]!;
      return raw.slice(0, v.start) + value + raw.slice(v.end);
    }
  }
  return appendWords(raw, `${key} ${value}`);
}

/** Adds a flag (`disabled`, `check`) unless present. */
export function addFlag(raw: string, flag: string, from = 0): string {
  const words = splitWords(raw);
  if (words.slice(from).some((w) => w.text === flag)) return raw;
  return appendWords(raw, flag);
}

/** Removes a word (with the blanks before it), and its value when `withValue`. */
export function removeWord(raw: string, key: string, withValue = false, from = 0): string {
  const words = splitWords(raw);
  for (let i = words.length - 1; i >= from; i--) {
    if (words[i]!.text !== key) continue;
    const last = withValue && words[i + 1] ? words[i + 1]! : words[i]!;
    const prevEnd = i > 0 ? words[i - 1]!.end : 0;
    return raw.slice(0, prevEnd) + raw.slice(last.end);
  }
  return raw;
}

/** Replaces word i (0-based) with `text`. */
export function replaceWord(raw: string, i: number, text: string): string {
  const w = splitWords(raw)[i];
  if (!w) return appendWords(raw, text);
  return raw.slice(0, w.start) + text + raw.slice(w.end);
}

function appendWords(raw: string, text: string): string {
  const words = splitWords(raw);
  const last = words[words.length - 1];
  const at = last ? last.end : commentStart(raw, words);
  return `${raw.slice(0, at)} ${text}${raw.slice(at)}`;
}
