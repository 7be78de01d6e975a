// "Did you mean" after a rename points at the renamed item's new name: a member left on a
// server's old name (the name was typed over with a taken one first, so it did not follow)
// is told the server's new name, not the namesake spelt most like the old one.
import { expect, test } from '@playwright/test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';

const SITE = [
  'lbdesk: 1',
  'name: site-r',
  'servers:',
  '  - { name: web-a, address: 192.0.2.11 }',
  '  - { name: web-b, address: 192.0.2.12 }',
  'groups:',
  '  - name: web',
  '    members:',
  '      - { server: web-a, port: 80 }',
  '      - { server: web-b, port: 80 }',
  'services:',
  '  - { name: www, address: 192.0.2.80, port: 80, group: web }',
  '',
].join('\n');

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: a member left on a renamed server's old name is pointed at its new name`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const app = new LbdeskPage(page);
    const file = join(mkdtempSync(join(dataDir(), 'rename-')), 'site-r.yaml');
    writeFileSync(file, SITE);
    await app.goto();
    await app.open(file, 'site-r');
    try {
      await page.keyboard.press('Control+2');
      const name = app.input('servers.0.name');
      // Typed over with a name that is taken: the member stays on web-a.
      await name.fill('web-b');
      await page.keyboard.press('Tab');
      // Then on to its real new name, one key at a time, as a user types.
      await name.focus();
      await page.keyboard.press('Control+a');
      await page.keyboard.type('app-1');
      await page.keyboard.press('Tab');
      await expect(name).toHaveValue('app-1');

      await page.keyboard.press('Control+3');
      const member = 'groups.0.members.0.server';
      await expect(app.messages(member)).toContainText('Unknown server "web-a" (did you mean "app-1"? "web-a" was renamed to "app-1")');
      // The untouched web-b's member is fine: nothing points it at app-1.
      await expect(app.messages('groups.0.members.1.server')).toHaveCount(0);
      await app.screenshot(`rename-hint-${width}`);

      // The problem list says the same, and leads back to the field from the keyboard.
      await app.section('problems');
      const problem = page.getByTestId('problem').filter({ hasText: 'did you mean "app-1"' });
      await expect(problem).toHaveCount(1);
      await problem.focus();
      await page.keyboard.press('Enter');
      await expect(app.input(member)).toBeFocused();
      app.expectNoErrors();
    } finally {
      await app.reopenDemo();
    }
  });
}
