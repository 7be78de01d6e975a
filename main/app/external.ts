// The one way out to the user's browser: https (and mailto) only, never file:, javascript: or app:.
export function isSafeExternalUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.protocol === 'mailto:') return true;
  return url.protocol === 'https:' && url.username === '' && url.password === '';
}

export async function checkedOpenExternal(url: string, open: (url: string) => Promise<void>): Promise<boolean> {
  if (!isSafeExternalUrl(url)) return false;
  await open(url);
  return true;
}
