// Days to a certificate's expiry and how worrying that is: one rule for the window, the CLI
// and the change report.
const DAY_MS = 86_400_000;

/** A certificate with fewer days left than this is a warning. */
export const CERT_WARN_DAYS = 30;

/**
 * Whole days from `at` to `notAfter`, rounded down (0 on its last day); once expired, minus the
 * whole days since (at least 1): -1 from the moment it expires until two days after.
 */
export function daysLeft(notAfter: number, at: number): number {
  if (notAfter > at) return Math.floor((notAfter - at) / DAY_MS);
  return -Math.max(1, Math.floor((at - notAfter) / DAY_MS));
}

export type CertLevel = 'ok' | 'warning' | 'expired';

export function certLevel(cert: { notAfter: number }, at: number): CertLevel {
  if (cert.notAfter <= at) return 'expired';
  return daysLeft(cert.notAfter, at) < CERT_WARN_DAYS ? 'warning' : 'ok';
}

/** `expires in 12 days`, `expired 3 days ago`: what a reader wants first. */
export function expiryWords(cert: { notAfter: number }, at: number): string {
  if (cert.notAfter <= at) {
    const ago = Math.floor((at - cert.notAfter) / DAY_MS);
    return ago === 0 ? 'expired today' : `expired ${ago} day${ago === 1 ? '' : 's'} ago`;
  }
  const d = daysLeft(cert.notAfter, at);
  return d === 0 ? 'expires within a day' : `expires in ${d} day${d === 1 ? '' : 's'}`;
}

/** The certificate with its days left at the check's time. */
export function seenAt<T extends { notAfter: number }>(cert: T, at: number): T & { daysLeft: number } {
  return { ...cert, daysLeft: daysLeft(cert.notAfter, at) };
}
