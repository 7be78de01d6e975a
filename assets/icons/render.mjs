// Renders ../icon.svg to the PNGs electron-builder and the window use: ../icon.png (512x512) and
// NxN.png here (the Linux icon set). Run after editing the SVG: `node assets/icons/render.mjs`.
// Uses Debian's Chromium through playwright-core, so the PNGs match the SVG exactly.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { env } from 'node:process';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const svg = readFileSync(join(here, '..', 'icon.svg')).toString('base64');
const SIZES = [16, 24, 32, 48, 64, 128, 256, 512];

const browser = await chromium.launch({ executablePath: env.CHROMIUM ?? '/usr/bin/chromium' });
try {
  for (const size of SIZES) {
    const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 });
    await page.setContent(`<html><body style="margin:0;background:transparent"><img width="${size}" height="${size}" src="data:image/svg+xml;base64,${svg}"></body></html>`);
    await page.locator('img').evaluate((img) => img.decode());
    const png = await page.screenshot({ omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } });
    writeFileSync(join(here, `${size}x${size}.png`), png);
    if (size === 512) writeFileSync(join(here, '..', 'icon.png'), png);
    await page.close();
  }
} finally {
  await browser.close();
}
