// The first line of every rendered file: what it was rendered from and a hash of the rest,
// so a diff is quiet when nothing changed and a hand edit on the appliance is detectable.
import type { DriverName } from '../../../shared/model/schema';
import { sha256 } from '../hash';

export interface HeaderInfo {
  workspace: string;
  appliance: string;
  driver: DriverName;
}

const HEADER_RE = /^# lbdesk: workspace (".*"), appliance (".*"), driver (\S+), sha256 ([0-9a-f]{64})$/;

/** Prepends the header line to a rendered body (which should end with a newline). */
export function withHeader(info: HeaderInfo, body: string): string {
  const line = `# lbdesk: workspace ${JSON.stringify(info.workspace)}, appliance ${JSON.stringify(info.appliance)}, driver ${info.driver}, sha256 ${sha256(body)}`;
  return `${line}\n${body}`;
}

export interface ParsedHeader extends HeaderInfo {
  hash: string;
  /** True when the body still hashes to the value in the header (not edited by hand). */
  intact: boolean;
}

/** Reads the header of a rendered (or pulled) file; undefined when it has none. */
export function parseHeader(text: string): ParsedHeader | undefined {
  const nl = text.indexOf('\n');
  const first = nl < 0 ? text : text.slice(0, nl);
  const m = HEADER_RE.exec(first);
  if (!m) return undefined;
  try {
    const workspace = JSON.parse(m[1]!) as string;
    const appliance = JSON.parse(m[2]!) as string;
    const body = nl < 0 ? '' : text.slice(nl + 1);
    return { workspace, appliance, driver: m[3] as DriverName, hash: m[4]!, intact: sha256(body) === m[4] };
  } catch {
    return undefined;
  }
}

/** One line of free text, safe inside a `#` comment of any of the config languages. */
export function commentText(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\x00-\x1f\x7f]+/g, ' ').trim();
}
