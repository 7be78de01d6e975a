// Host key blobs: their type and OpenSSH's SHA256 fingerprint.
import { createHash } from 'node:crypto';

/** `SHA256:` + unpadded base64, exactly as `ssh-keygen -lf` prints it. */
export function fingerprintOf(blob: Buffer): string {
  return `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
}

/** The key type named inside an SSH public key blob (its first string). */
export function keyTypeOf(blob: Buffer): string {
  if (blob.length < 4) return 'unknown';
  const len = blob.readUInt32BE(0);
  if (len > 64 || 4 + len > blob.length) return 'unknown';
  return blob.subarray(4, 4 + len).toString('latin1');
}

/** Fingerprints compare without base64 padding (the workspace schema allows a trailing `=`). */
export function sameFingerprint(a: string, b: string): boolean {
  return a.replace(/=+$/, '') === b.replace(/=+$/, '');
}
