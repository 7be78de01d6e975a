// The one way out to the user's browser. Only https (without credentials) and mailto pass:
// never file:, javascript:, data:, app:, smb: or plain http, which an injected page could use to
// run or fetch things outside the sandbox.
const MAX_URL = 2048;

/** The normalised URL to open, or undefined when it must not be opened. */
export function safeExternalUrl(raw: string): string | undefined {
  if (typeof raw !== 'string' || raw.length === 0 || raw.length > MAX_URL) return undefined;
  // Control characters and backslashes are never part of a link we would show.
  for (const ch of raw) if (ch <= '\u001f' || ch === '\u007f' || ch === '\\') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.username !== '' || url.password !== '') return undefined;
  if (url.protocol === 'mailto:') return url.href;
  if (url.protocol !== 'https:' || url.hostname === '') return undefined;
  return url.href;
}

export function isSafeExternalUrl(raw: string): boolean {
  return safeExternalUrl(raw) !== undefined;
}

/** Opens `url` through `open` (Electron's shell.openExternal) only when it is safe. */
export async function checkedOpenExternal(url: string, open: (url: string) => Promise<void>): Promise<boolean> {
  const safe = safeExternalUrl(url);
  if (safe === undefined) return false;
  await open(safe);
  return true;
}
