// The window's remembered size and place: saved and loaded from the data folder, refused when
// corrupt, and put back only where it still fits today's displays.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { captureState, DEFAULT_SIZE, loadWindowState, MIN_SIZE, parseWindowState, placeWindow, saveWindowState, saveWindowStateSync, windowStateFile, type Rect, type WindowState } from '../../../main/app/window-state';
import { tempDir } from '../../helpers/app-ipc';

const laptop: Rect = { x: 0, y: 0, width: 1920, height: 1050 };
const rightMonitor: Rect = { x: 1920, y: 0, width: 2560, height: 1410 };
const state = (bounds: Rect, maximized = false): WindowState => ({ bounds, maximized, fullScreen: false });

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => (tmp = tempDir('winstate')));
afterEach(() => tmp.cleanup());

describe('window state', () => {
  it('round-trips through the data folder, also synchronously on close', async () => {
    expect(await loadWindowState(tmp.dir)).toBeUndefined();
    const s = state({ x: 100, y: 80, width: 1300, height: 850 }, true);
    await saveWindowState(tmp.dir, s);
    expect(await loadWindowState(tmp.dir)).toEqual(s);
    saveWindowStateSync(tmp.dir, { ...s, fullScreen: true });
    expect(JSON.parse(readFileSync(windowStateFile(tmp.dir), 'utf8'))).toEqual({ ...s, fullScreen: true });
  });

  it('ignores a corrupt or implausible file', async () => {
    mkdirSync(tmp.dir, { recursive: true });
    for (const text of ['{', '[]', '{"bounds":{"x":0,"y":0,"width":-5,"height":10},"maximized":false}', '{"bounds":{"x":1e9,"y":0,"width":800,"height":600},"maximized":false}', '{"bounds":{"x":0,"y":0,"width":800,"height":600},"maximized":"yes"}']) {
      writeFileSync(windowStateFile(tmp.dir), text);
      expect(await loadWindowState(tmp.dir), text).toBeUndefined();
    }
    expect(parseWindowState({ bounds: { x: 1, y: 2, width: 900, height: 700 }, maximized: false })).toEqual({ bounds: { x: 1, y: 2, width: 900, height: 700 }, maximized: false, fullScreen: false });
  });

  it('opens at the default size, centred, the first time', () => {
    expect(placeWindow(undefined, [laptop])).toEqual({ bounds: DEFAULT_SIZE, maximized: false, fullScreen: false });
  });

  it('restores a place that is still on a display, on any display', () => {
    expect(placeWindow(state({ x: 2100, y: 100, width: 1400, height: 900 }, true), [laptop, rightMonitor])).toEqual({
      bounds: { x: 2100, y: 100, width: 1400, height: 900 },
      maximized: true,
      fullScreen: false,
    });
  });

  it('recentres a window whose monitor has gone, keeping a size that fits', () => {
    const placed = placeWindow(state({ x: 2100, y: 100, width: 2400, height: 1300 }), [laptop]);
    expect(placed.bounds).toEqual({ width: 1920, height: 1050 });
  });

  it('recentres a window whose title bar is off screen', () => {
    expect(placeWindow(state({ x: 200, y: -600, width: 1200, height: 900 }), [laptop]).bounds).toEqual({ width: 1200, height: 900 });
  });

  it('never goes below the minimum size', () => {
    expect(placeWindow(state({ x: 10, y: 10, width: 100, height: 80 }), [laptop]).bounds).toEqual({ x: 10, y: 10, ...MIN_SIZE });
  });

  it('captures the normal (un-maximised) bounds', () => {
    const win = { getNormalBounds: () => ({ x: 10.4, y: 20.6, width: 1000, height: 700 }), isMaximized: () => true, isFullScreen: () => false };
    expect(captureState(win)).toEqual({ bounds: { x: 10, y: 21, width: 1000, height: 700 }, maximized: true, fullScreen: false });
  });
});
