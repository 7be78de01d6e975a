// The one content hash lbdesk records and compares: a config's bytes (or a string's UTF-8) as
// SHA-256 in hex — in the history, the push report, the render header and on the box.
import { createHash } from 'node:crypto';

export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}
