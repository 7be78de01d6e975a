// The app:// protocol: the built renderer is served from one folder under a custom, standard,
// secure scheme instead of file://, so the page has a real origin, a CSP header, and no
// file-system reach. Pure (no `electron` import): the session glue wraps serveAppRequest.
import { readFile, realpath, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { CSP } from '../host/static';

export const APP_SCHEME = 'app';
export const APP_HOST = 'lbdesk';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_ENTRY = `${APP_ORIGIN}/index.html`;

/** Privileges for protocol.registerSchemesAsPrivileged: a secure standard origin, nothing more. */
export const APP_SCHEME_PRIVILEGES = { standard: true, secure: true, supportFetchAPI: true } as const;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
  '.json': 'application/json', '.woff2': 'font/woff2', '.woff': 'font/woff',
};

/** True for URLs of our own page: app://lbdesk/…, no credentials, no port. */
export function isAppUrl(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  return url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST && url.username === '' && url.password === '';
}

export interface AppResponse { status: number; headers: Record<string, string>; body?: Buffer }

const text = (status: number, message: string): AppResponse => ({
  status,
  headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' },
  body: Buffer.from(`${message}\n`),
});

/**
 * The file under `root` that an app:// URL names, or an error status. Refuses other hosts,
 * percent-encoded traversal, backslashes, NUL bytes, and anything resolving outside `root`.
 */
export function resolveAppFile(rawUrl: string, root: string): { file: string } | { status: number; message: string } {
  if (!isAppUrl(rawUrl)) return { status: 403, message: 'not an app:// URL of lbdesk' };
  let rel: string;
  try {
    rel = decodeURIComponent(new URL(rawUrl).pathname);
  } catch {
    return { status: 400, message: 'bad path' };
  }
  if (rel.includes('\0') || rel.includes('\\')) return { status: 400, message: 'bad path' };
  const base = resolve(root);
  const file = resolve(base, `.${rel === '/' || rel === '' ? '/index.html' : rel}`);
  if (file !== base && !file.startsWith(base + sep)) return { status: 403, message: 'forbidden' };
  return { file };
}

/** Answers one app:// request from the files under `root` (the built renderer). */
export async function serveAppRequest(rawUrl: string, method: string, root: string): Promise<AppResponse> {
  if (method !== 'GET' && method !== 'HEAD') return text(405, 'method not allowed');
  const target = resolveAppFile(rawUrl, root);
  if ('status' in target) return text(target.status, target.message);
  let file = target.file;
  let info = await stat(file).catch(() => undefined);
  // Client-side routes (no extension) get the app shell; a missing asset is a plain 404.
  if (!info?.isFile()) {
    if (extname(file) !== '') return text(404, 'not found');
    file = join(resolve(root), 'index.html');
    info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return text(404, 'the renderer is not built: run `npm run build`');
  }
  // A symlink inside the renderer folder must not lead out of it.
  const [realFile, realRoot] = await Promise.all([realpath(file), realpath(resolve(root))]);
  if (!realFile.startsWith(realRoot + sep)) return text(403, 'forbidden');
  const body = await readFile(realFile);
  return {
    status: 200,
    headers: {
      'content-type': TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
      'content-security-policy': CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    },
    body: method === 'HEAD' ? undefined : body,
  };
}
