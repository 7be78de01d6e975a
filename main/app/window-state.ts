// Remembers the main window's size, position and maximised state in the data folder, and puts it
// back only where it still fits one of today's displays (a monitor may have gone away).
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { writeFileSync, renameSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';

export interface Rect { x: number; y: number; width: number; height: number }
export interface WindowState { bounds: Rect; maximized: boolean; fullScreen: boolean }

export const DEFAULT_SIZE = { width: 1400, height: 900 };
export const MIN_SIZE = { width: 800, height: 560 };

const int = z.number().int().min(-100_000).max(100_000);
const stateSchema = z.object({
  bounds: z.object({ x: int, y: int, width: int.min(1), height: int.min(1) }),
  maximized: z.boolean(),
  fullScreen: z.boolean().default(false),
});

export const windowStateFile = (dataDir: string) => join(dataDir, 'window-state.json');

/** The parsed state, or undefined for anything missing, corrupt or out of range. */
export function parseWindowState(raw: unknown): WindowState | undefined {
  const parsed = stateSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}

function overlap(a: Rect, b: Rect): number {
  const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
  const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

/**
 * Where to open the window: the saved bounds when at least a quarter of the window (and its
 * title bar) is on some display; otherwise the saved size, clamped to the primary work area and
 * centred (x/y omitted). No saved state → the default size, centred.
 */
export function placeWindow(state: WindowState | undefined, workAreas: Rect[]): { bounds: Partial<Rect> & { width: number; height: number }; maximized: boolean; fullScreen: boolean } {
  const primary = workAreas[0];
  const clampSize = (w: number, h: number) => ({
    width: Math.max(MIN_SIZE.width, Math.min(w, primary?.width ?? w)),
    height: Math.max(MIN_SIZE.height, Math.min(h, primary?.height ?? h)),
  });
  if (!state) return { bounds: clampSize(DEFAULT_SIZE.width, DEFAULT_SIZE.height), maximized: false, fullScreen: false };
  const b = state.bounds;
  const titleBar: Rect = { x: b.x, y: b.y, width: b.width, height: Math.min(40, b.height) };
  const visible = workAreas.some((area) => overlap(b, area) >= (b.width * b.height) / 4 && overlap(titleBar, area) > 0);
  const size = clampSize(b.width, b.height);
  return {
    bounds: visible ? { x: b.x, y: b.y, ...size } : size,
    maximized: state.maximized,
    fullScreen: state.fullScreen,
  };
}

/** The parts of a BrowserWindow the state is read from. */
export interface WindowLike {
  getNormalBounds(): Rect;
  isMaximized(): boolean;
  isFullScreen(): boolean;
}

export function captureState(win: WindowLike): WindowState {
  const b = win.getNormalBounds();
  return {
    bounds: { x: Math.round(b.x), y: Math.round(b.y), width: Math.round(b.width), height: Math.round(b.height) },
    maximized: win.isMaximized(),
    fullScreen: win.isFullScreen(),
  };
}

export async function loadWindowState(dataDir: string): Promise<WindowState | undefined> {
  try {
    return parseWindowState(JSON.parse(await readFile(windowStateFile(dataDir), 'utf8')));
  } catch {
    return undefined;
  }
}

export async function saveWindowState(dataDir: string, state: WindowState): Promise<void> {
  const file = windowStateFile(dataDir);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  await rename(`${file}.tmp`, file);
}

/** For the window's `close` event, when there is no time to wait for a promise. */
export function saveWindowStateSync(dataDir: string, state: WindowState): void {
  const file = windowStateFile(dataDir);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(`${file}.tmp`, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
}
