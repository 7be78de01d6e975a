// Sections lbdesk adds to a file it shares with hand-written sections carry one comment line
// right above their header: `# lbdesk: owned, sha256 <16 hex>` (the hash of the section as lbdesk
// wrote it, header to last directive). Any driver's section kind can be owned this way.
import { sha256 } from '../../hash';

const MARKER_RE = /^\s*[#!]\s*lbdesk: owned, sha256 ([0-9a-f]{16})\s*$/;

export function sectionHash(lines: string[]): string {
  return sha256(lines.map((l) => l.replace(/\r$/, '')).join('\n')).slice(0, 16);
}

export function markerLine(lines: string[], comment = '#'): string {
  return `${comment} lbdesk: owned, sha256 ${sectionHash(lines)}`;
}

/** The hash in a marker line, if the line is one. */
export function markerHash(line: string | undefined): string | undefined {
  return line === undefined ? undefined : MARKER_RE.exec(line)?.[1];
}

export function isMarker(line: string | undefined): boolean {
  return markerHash(line) !== undefined;
}
