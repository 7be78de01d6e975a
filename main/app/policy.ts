// The security decisions of the desktop shell, as plain functions (tested without Electron):
// what the window may load, where it may navigate, which requests leave the renderer.
import type { WebPreferences } from 'electron';
import { isAppUrl } from './protocol';
import { safeExternalUrl } from './external';

/** Every window gets exactly these: isolated, sandboxed, no Node, no webview, no remote content. */
export function secureWebPreferences(preload: string, devTools: boolean): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    experimentalFeatures: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    safeDialogs: true,
    spellcheck: false,
    devTools,
  };
}

export type NavigationDecision = 'allow' | 'external' | 'deny';

/** In-app navigation stays on app://lbdesk; a safe https/mailto link goes to the browser instead. */
export function navigationDecision(url: string): NavigationDecision {
  if (isAppUrl(url)) return 'allow';
  return safeExternalUrl(url) === undefined ? 'deny' : 'external';
}

/**
 * What the renderer may request: its own files, in-page data:/blob: content (which CSP limits
 * further), and DevTools' own pages in development. Nothing goes over the network.
 */
export function isAllowedRequest(url: string, devTools: boolean): boolean {
  if (isAppUrl(url)) return true;
  if (url.startsWith('data:') || url.startsWith('blob:app://lbdesk/')) return true;
  if (devTools && (url.startsWith('devtools://') || url.startsWith('chrome-extension://'))) return true;
  return false;
}

/**
 * Chromium/Node switches that would open a debugging door into a packaged app. The fuses turn
 * off Node's; these are Chromium's, refused at start-up.
 */
const FORBIDDEN_SWITCHES = ['--remote-debugging-port', '--remote-debugging-pipe', '--inspect', '--inspect-brk', '--inspect-port', '--js-flags', '--remote-allow-origins'];

export function forbiddenSwitch(argv: readonly string[]): string | undefined {
  for (const arg of argv) {
    const name = arg.split('=')[0]!.toLowerCase();
    if (FORBIDDEN_SWITCHES.includes(name)) return name;
  }
  return undefined;
}
