// Bytes to lines for the parsers: refuses binary and oversized input with file:line.
import { ImportError, MAX_IMPORT_BYTES } from './types';

/** The file's text; binary data or invalid UTF-8 is an error at its line. */
export function decodeConfig(bytes: Uint8Array, file: string): string {
  if (bytes.length > MAX_IMPORT_BYTES) {
    throw new ImportError(file, 1, `${(bytes.length / 1024 / 1024).toFixed(1)} MiB is too large to be a config (import reads at most ${MAX_IMPORT_BYTES / 1024 / 1024} MiB)`);
  }
  const nul = bytes.indexOf(0);
  if (nul >= 0) throw new ImportError(file, lineAt(bytes, nul), 'binary data (a NUL byte): not a text config');
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const bad = firstInvalidUtf8(bytes);
    throw new ImportError(file, lineAt(bytes, bad), 'not UTF-8 text (binary data?)');
  }
}

function lineAt(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (bytes[i] === 10) line++;
  return line;
}

function firstInvalidUtf8(bytes: Uint8Array): number {
  const dec = new TextDecoder('utf-8', { fatal: true });
  let lo = 0;
  let hi = bytes.length;
  // The longest prefix that decodes (a prefix may end inside a character: allow 3 bytes slack).
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    try {
      dec.decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  return lo;
}

/** Lines without their `\n` (a `\r` stays in the raw line; parsers strip it). */
export function splitLines(text: string): string[] {
  return text.split('\n');
}
