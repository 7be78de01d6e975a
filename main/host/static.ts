// Serves the built renderer: files under one folder only, with the same CSP as the app.
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json', '.woff2': 'font/woff2',
};
export const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

export async function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'method not allowed');
  const url = new URL(req.url ?? '/', 'http://x');
  let rel: string;
  try {
    rel = decodeURIComponent(url.pathname);
  } catch {
    return send(res, 400, 'bad path');
  }
  if (rel.includes('\0')) return send(res, 400, 'bad path');
  const file = normalize(join(root, rel === '/' ? 'index.html' : rel));
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) return send(res, 403, 'forbidden');
  const info = await stat(file).catch(() => undefined);
  // Unknown paths get the app shell, so a reload on any client-side route still works.
  const target = info?.isFile() ? file : join(root, 'index.html');
  const body = await readFile(target).catch(() => undefined);
  if (!body) return send(res, 404, 'the renderer is not built: run `npm run build`');
  res.writeHead(200, {
    'content-type': TYPES[extname(target)] ?? 'application/octet-stream',
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': target.endsWith('index.html') ? 'no-store' : 'max-age=3600',
  });
  res.end(req.method === 'HEAD' ? undefined : body);
}

export function send(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
  res.end(`${message}\n`);
}
