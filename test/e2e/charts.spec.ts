// The lab's charts at both window sizes: a member's response time with its group's thresholds and
// its checks, connections and bytes of the member and of its service, live, on a real lab with a
// backend this test runs and traffic it sends through the engine.
import { expect, test, type Locator } from '@playwright/test';
import { request } from 'node:http';
import { join } from 'node:path';
import { LbdeskPage, SCREENSHOTS } from './pages/lbdesk';
import { startLabSite, type LabSite } from './pages/lab-site';

const HOST = '127.0.0.76';
let site: LabSite;
/** The backend's health page says OK (else 503: the check fails). */
let healthy = true;

test.beforeAll(async () => {
  site = await startLabSite({
    host: HOST, name: 'charts-e2e', interval: '300ms', checkExtra: 'degradedAbove: 200ms, availableBelow: 100ms',
    body: 'x'.repeat(2000), healthy: () => healthy,
  });
});

test.afterAll(() => site.stopBackend());

/** A few HTTP requests through the lab's virtual service (bounded). */
async function traffic(n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await new Promise<void>((resolve, reject) => {
      const req = request({ host: HOST, port: site.vipPort, path: '/', agent: false, timeout: 3000 }, (res) => {
        res.resume();
        res.on('end', () => resolve());
      });
      req.on('error', reject);
      req.end();
    });
  }
}

/** Pixels of the canvas within a small distance of an RGB colour. */
function pixelsNear(canvas: Locator, rgb: [number, number, number]): Promise<number> {
  return canvas.evaluate((el, [r, g, b]) => {
    const c = el as unknown as { width: number; height: number; getContext(k: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } };
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i]! - r) + Math.abs(d[i + 1]! - g) + Math.abs(d[i + 2]! - b) < 24 && d[i + 3]! > 200) n++;
    return n;
  }, rgb);
}

const points = async (chart: Locator) => Number(await chart.getAttribute('data-points'));

for (const size of [{ width: 1440, height: 900 }, { width: 1024, height: 700 }]) {
  test.describe(`${size.width}×${size.height}`, () => {
    test.use({ viewport: size });

    test('a member charts its response time with thresholds, and traffic live', async ({ page }) => {
      // Two lab phases (traffic, then failing checks and back) on a machine others share.
      test.setTimeout(120_000);
      const app = new LbdeskPage(page);
      await app.goto();
      await app.open(site.workspaceFile, 'charts-e2e');
      await app.startLab();
      const key = `g:app/app1:${site.backendPort}`;
      await expect(app.member(key).getByTestId('state')).toHaveText('available', { timeout: 10_000 });
      await app.member(key).click();
      const detail = page.getByTestId('member-detail');

      const checks = detail.getByTestId('check-chart');
      await expect(checks.locator('canvas')).toBeVisible();
      await expect(checks).toHaveAttribute('data-thresholds', 'degraded above 200 ms=200;available below 100 ms=100');
      await expect(checks).toHaveAttribute('data-series', 'response time');
      await expect.poll(() => points(checks)).toBeGreaterThanOrEqual(3);
      await expect(checks.getByTestId('chart-summary')).toContainText(/Response time: \d+ checks, last [\d.]+ ms/);
      const box = (await checks.locator('canvas').boundingBox())!;
      expect(box.width).toBeGreaterThan(250);
      expect(box.height).toBeGreaterThan(100);

      // The same chart grows: its canvas is not made again each second.
      await checks.locator('canvas').evaluate((c) => c.setAttribute('data-first', 'yes'));
      const before = await points(checks);
      await expect.poll(() => points(checks)).toBeGreaterThan(before);
      await expect(checks.locator('canvas')).toHaveAttribute('data-first', 'yes');

      await traffic(5);
      const conns = detail.getByTestId('conn-chart');
      await expect(conns.locator('canvas')).toBeVisible({ timeout: 10_000 });
      await expect(conns.getByTestId('chart-summary')).toContainText(/5 new over the chart/, { timeout: 10_000 });
      await expect(detail.getByTestId('bytes-chart').getByTestId('chart-summary')).toContainText(/to clients now, peak [\d.]+ kB\/s/);
      // One above the other, they share one time axis.
      const spans = await detail.getByTestId('traffic-charts').evaluate((el) => [...el.querySelectorAll('figure')].map((f) => f.getAttribute('data-x')));
      expect(spans).toHaveLength(2);
      expect(spans[0]).toMatch(/^\d+-\d+$/);
      expect(spans[1]).toBe(spans[0]);
      // Failed checks are marked on the chart (and said below it).
      healthy = false;
      await expect(checks).toHaveAttribute('data-series', 'response time;failed', { timeout: 10_000 });
      await expect(checks.getByTestId('chart-summary')).toContainText(/\d+ failed/);
      healthy = true;
      await expect(app.member(key).getByTestId('state')).toHaveText('available', { timeout: 10_000 });
      await detail.getByTestId('check-chart').scrollIntoViewIfNeeded();
      await app.screenshot(`charts-member-${size.width}`);
      await detail.getByTestId('traffic-charts').screenshot({ path: join(SCREENSHOTS, `charts-member-traffic-${size.width}.png`) });

      // The service: the same traffic over the whole pool, in its editor.
      await page.getByRole('button', { name: 'app-vip' }).first().click();
      const svc = page.getByTestId('connection-share').getByTestId('conn-chart');
      await expect(svc.locator('canvas')).toBeVisible();
      await expect(svc.getByTestId('chart-summary')).toContainText(/5 new over the chart/);
      await svc.scrollIntoViewIfNeeded();
      await app.screenshot(`charts-service-${size.width}`);

      // The other theme: the chart is redrawn in its colours (the accent of each theme, on the canvas).
      const light = await pixelsNear(svc.locator('canvas'), [31, 111, 235]);
      expect(light).toBeGreaterThan(20);
      await page.keyboard.press('Control+Shift+L');
      await expect.poll(() => pixelsNear(svc.locator('canvas'), [76, 141, 255])).toBeGreaterThan(20);
      expect(await pixelsNear(svc.locator('canvas'), [31, 111, 235])).toBe(0);
      await app.screenshot(`charts-service-${size.width}-theme`);
      await page.keyboard.press('Control+Shift+L');

      await app.stopLab();
      app.expectNoErrors();
    });
  });
}

test.afterEach(({ page }) => new LbdeskPage(page).reopenDemo());
