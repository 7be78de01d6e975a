// Small formatting helpers shared by the drivers.
import { formatDuration } from '../../../shared/model/duration';
import { CONTROL, KEEPALIVED_WORD_MAX, oneLineOrThrow, utf8Bytes } from '../../../shared/model/text-rules';

export { httpTarget } from '../../../shared/model/text-rules';

/** HAProxy time: 30s, 5m, 1h, 500ms (the units HAProxy and lbdesk share). */
export function haproxyTime(ms: number): string {
  return formatDuration(ms);
}

/** keepalived timers are seconds, fractions allowed: 30, 0.5. */
export function keepalivedSeconds(ms: number): string {
  return String(ms / 1000);
}

/** `host:port` for HAProxy: IPv6 in brackets, no port when the member has none. */
export function haproxyAddress(address: string, port?: number): string {
  const host = address.includes(':') ? `[${address}]` : address;
  return port === undefined ? host : `${host}:${port}`;
}

/**
 * One HAProxy word: bare when safe, else single-quoted (no escapes or `$` expansion inside).
 * A control character would end the directive, so it is refused (UnwritableTextError).
 */
export function haproxyWord(text: string, what = 'a value'): string {
  oneLineOrThrow(what, text);
  if (/^[A-Za-z0-9._/:+*=,@%~^()[\]{}|!?<>-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A keepalived word. The line splitter knows double quotes but no escapes, so a value with a
 * double quote, a brace (a block's end or start), a control character or more bytes than a line
 * holds cannot be written at all (undefined); `#` and `!` are safe inside quotes.
 */
export function keepalivedValue(text: string): string | undefined {
  if (/["{}]/.test(text) || CONTROL.test(text) || utf8Bytes(text) > KEEPALIVED_WORD_MAX) return undefined;
  return /^[^\s'#!\\]+$/.test(text) ? text : `"${text}"`;
}

/** A keepalived `regex` argument: quoted, backslashes doubled (that keyword unescapes them). */
export function keepalivedRegex(pattern: string): string {
  return `"${pattern.replace(/\\/g, '\\\\')}"`;
}

/** A PCRE pattern matching `text` literally; `"` as \x22 so it fits in a quoted keepalived word. */
export function regexLiteral(text: string): string {
  return text.replace(/[\\^$.|?*+()[\]{}/]/g, '\\$&').replace(/"/g, '\\x22');
}

export interface ScaledWeights {
  weights: number[];
  /** True when the weights had to be scaled down to fit the tool's range. */
  scaled: boolean;
}

/** Fits weights into 0..max keeping their ratios as closely as integers allow; 0 stays 0, others stay >= 1. */
export function scaleWeights(weights: number[], max: number): ScaledWeights {
  const top = Math.max(0, ...weights);
  if (top <= max) return { weights: [...weights], scaled: false };
  return { weights: weights.map((w) => (w === 0 ? 0 : Math.max(1, Math.round((w * max) / top)))), scaled: true };
}

/** Weights for algorithms that ignore them: every member equal, but weight 0 still drains. */
export function equalWeights(weights: number[]): number[] {
  return weights.map((w) => (w === 0 ? 0 : 1));
}

export function indent(lines: string[], by = '    '): string[] {
  return lines.map((l) => (l === '' ? l : by + l));
}
