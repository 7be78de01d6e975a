// Electron glue for the security policy (policy.ts, protocol.ts): the app:// handler, permission
// and device requests denied, requests off app:// cancelled, downloads refused, and for every web
// contents: no navigation away, no new windows, no <webview>.
import { protocol, type Session, type WebContents } from 'electron';
import { APP_SCHEME, APP_SCHEME_PRIVILEGES, serveAppRequest } from './protocol';
import { isAllowedRequest, navigationDecision } from './policy';

type Log = (level: 'info' | 'warn' | 'error', message: string) => void;

/** Must run before `app` is ready. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { ...APP_SCHEME_PRIVILEGES } }]);
}

export function hardenSession(ses: Session, opts: { rendererDir: string; devTools: boolean; log: Log }): void {
  ses.protocol.handle(APP_SCHEME, async (request) => {
    const out = await serveAppRequest(request.url, request.method, opts.rendererDir);
    if (out.status !== 200) opts.log('warn', `app:// ${out.status} ${request.method} ${request.url}`);
    return new Response(out.body ? new Uint8Array(out.body) : null, { status: out.status, headers: out.headers });
  });
  ses.setPermissionRequestHandler((_contents, permission, callback) => {
    opts.log('warn', `permission request denied: ${permission}`);
    callback(false);
  });
  ses.setPermissionCheckHandler(() => false);
  ses.setDevicePermissionHandler(() => false);
  ses.webRequest.onBeforeRequest((details, callback) => {
    const allowed = isAllowedRequest(details.url, opts.devTools);
    if (!allowed) opts.log('warn', `request cancelled: ${details.url.slice(0, 200)}`);
    callback({ cancel: !allowed });
  });
  ses.on('will-download', (event, item) => {
    opts.log('warn', `download refused: ${item.getURL().slice(0, 200)}`);
    event.preventDefault();
  });
}

export function hardenContents(contents: WebContents, opts: { openLink: (url: string) => Promise<boolean>; log: Log }): void {
  const guard = (event: { preventDefault(): void }, url: string, what: string) => {
    const decision = navigationDecision(url);
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'external') void opts.openLink(url);
    else opts.log('warn', `${what} refused: ${url.slice(0, 200)}`);
  };
  contents.on('will-navigate', (event) => guard(event, event.url, 'navigation'));
  contents.on('will-frame-navigate', (event) => guard(event, event.url, 'frame navigation'));
  contents.on('will-redirect', (event) => guard(event, event.url, 'redirect'));
  contents.setWindowOpenHandler(({ url }) => {
    if (navigationDecision(url) === 'external') void opts.openLink(url);
    else opts.log('warn', `new window refused: ${url.slice(0, 200)}`);
    return { action: 'deny' };
  });
  contents.on('will-attach-webview', (event) => {
    opts.log('warn', 'webview refused');
    event.preventDefault();
  });
  contents.on('render-process-gone', (_event, details) => {
    opts.log('error', `renderer gone: ${details.reason} (exit ${details.exitCode})`);
  });
}
