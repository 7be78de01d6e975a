// Issue 30 item 9: a changed host key is one question — the old and the new fingerprint side by
// side, where the old one is kept, what to check on the box — and one answer that replaces it in
// known_hosts and in the workspace pin (hostKey). A real loopback sshd whose host key the test
// replaces (the same address, port and user key: a reinstalled appliance). Keyboard only.
import { expect, test } from '@playwright/test';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LbdeskPage } from './pages/lbdesk';
import { dataDir } from './pages/env';
import { haproxyApplianceLines, haveSshd, noSshd, startSshd, type Sshd } from '../helpers/sshd';

test.skip(!haveSshd, noSshd);
let sshd: Sshd | undefined;
test.afterEach(async ({ page }) => {
  await new LbdeskPage(page).reopenDemo();
  await sshd?.stop();
});

for (const [width, height] of [[1440, 900], [1024, 700]] as const) {
  test(`${width}×${height}: a reinstalled box: both fingerprints, what to verify, one decision for known_hosts and the pin`, async ({ page }) => {
    await page.setViewportSize({ width, height });
    const dir = mkdtempSync(join(dataDir(), `rekey-${width}-`));
    const host = width === 1440 ? '127.0.8.98' : '127.0.8.99';
    sshd = await startSshd({ host, dir });
    const live = join(dir, 'haproxy.cfg');
    const workspaceFile = join(dir, 'rekey.yaml');
    writeFileSync(workspaceFile, [
      'lbdesk: 1', `name: rekey-${width}`,
      'servers:', '  - { name: web1, address: 127.0.0.21 }',
      'groups:', '  - { name: web, members: [{ server: web1, port: 8081 }], healthCheck: { type: tcp } }',
      'services:', '  - { name: web-vip, address: 192.0.2.80, port: 80, group: web }',
      'appliances:', ...haproxyApplianceLines(sshd, 'box', live), '',
    ].join('\n'));
    const knownHosts = join(dataDir(), 'home', '.ssh', 'known_hosts');
    const app = new LbdeskPage(page);
    await app.goto();
    await app.open(workspaceFile, `rekey-${width}`);
    await page.keyboard.press('Control+6');
    // First contact: trusted, pinned, saved (known_hosts has it too).
    await app.diff();
    const oldKey = sshd.hostKey;
    await expect(page.getByLabel('Pinned host key', { exact: true })).toHaveValue(oldKey.fingerprint);
    await app.save();
    const oldLine = oldKey.pub.split(' ')[1]!;
    const before = readFileSync(knownHosts, 'utf8');
    expect(before).toContain(oldLine);

    // The box is reinstalled: same address, port and login, a new host key.
    await sshd.stop();
    sshd = await startSshd({ host, dir, port: sshd.port, hostKeyName: 'reinstalled' });
    const newKey = sshd.hostKey;
    expect(newKey.fingerprint).not.toBe(oldKey.fingerprint);

    // Declined: refused, and the refusal names both places the old key is kept.
    await page.getByTestId('diff-button').focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByTestId('host-key-dialog');
    await expect(dialog).toBeVisible({ timeout: 20_000 });
    await expect(page.getByRole('dialog', { name: 'Host key changed' })).toBeVisible();
    await expect(dialog).not.toContainText('never connected');
    await expect(dialog.getByTestId('fingerprint')).toHaveText(newKey.fingerprint);
    const olds = dialog.getByTestId('fingerprint-old');
    await expect(olds).toHaveCount(2);
    await expect(olds.nth(0)).toHaveText(oldKey.fingerprint);
    await expect(olds.nth(1)).toHaveText(oldKey.fingerprint);
    await expect(dialog).toContainText(`known_hosts (${knownHosts}:`);
    await expect(dialog).toContainText('the workspace pin (hostKey)');
    await expect(dialog.getByTestId('host-key-verify')).toContainText('ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub');
    // Side by side: the two fingerprints on one line.
    const [a, b] = [await olds.first().boundingBox(), await dialog.getByTestId('fingerprint').boundingBox()];
    expect(Math.abs(a!.y - b!.y)).toBeLessThan(4);
    expect(b!.x).toBeGreaterThan(a!.x + a!.width - 1);
    for (const button of [page.getByTestId('host-key-reject'), page.getByTestId('host-key-replace')]) {
      expect(await button.evaluate((el) => el.scrollWidth <= el.clientWidth), 'button label whole').toBe(true);
      await expect(button).toBeInViewport({ ratio: 1 });
    }
    await app.screenshot(`host-key-changed-${width}`);
    // The safe answer has the focus: Enter declines.
    await expect(page.getByTestId('host-key-reject')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('diff-error')).toContainText(`not the key in ${knownHosts}:`);
    await expect(page.getByTestId('diff-error')).toContainText('workspace hostKey');
    expect(readFileSync(knownHosts, 'utf8')).toBe(before);
    await expect(page.getByLabel('Pinned host key', { exact: true })).toHaveValue(oldKey.fingerprint);

    // Replaced: one decision updates both, and the diff follows.
    await page.getByTestId('diff-button').focus();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('host-key-replace')).toBeVisible({ timeout: 20_000 });
    await page.keyboard.press('Tab');
    await expect(page.getByTestId('host-key-replace')).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByTestId('diff').or(page.getByTestId('no-change')).first()).toBeVisible({ timeout: 20_000 });
    await expect(page.getByLabel('Pinned host key', { exact: true })).toHaveValue(newKey.fingerprint);
    const after = readFileSync(knownHosts, 'utf8');
    expect(after).toContain(newKey.pub.split(' ')[1]!);
    expect(after).not.toContain(oldLine);
    expect(after.split('\n').filter((l) => l.trim()).length).toBe(before.split('\n').filter((l) => l.trim()).length);
    // Asked once: a second diff connects without a question.
    await page.getByTestId('diff-button').click();
    await expect(page.getByTestId('diff').or(page.getByTestId('no-change')).first()).toBeVisible({ timeout: 20_000 });
    await expect(dialog).toHaveCount(0);
    app.expectNoErrors();
  });
}
