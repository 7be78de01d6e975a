// Page object for the lbdesk window in browser mode: what a user sees and does, by role and label.
import { expect, type Locator, type Page } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { demoPath } from './env';

export const SCREENSHOTS = join(__dirname, '../../../test-results/screenshots');

export class LbdeskPage {
  /** Console errors and uncaught exceptions seen on the page. */
  readonly errors: string[] = [];

  constructor(readonly page: Page) {
    page.on('console', (m) => {
      if (m.type() === 'error') this.errors.push(m.text());
    });
    page.on('pageerror', (e) => this.errors.push(e.message));
  }

  /** Opens browser mode with its token and waits for the workspace to load. */
  async goto(): Promise<void> {
    const url = process.env.LBDESK_URL;
    if (!url) throw new Error('LBDESK_URL is not set: run through playwright.config.ts (global setup)');
    await this.page.goto(url);
    await expect(this.name).not.toHaveText(/^(Opening…|lbdesk)$/);
  }

  get name(): Locator {
    return this.page.getByTestId('workspace-name');
  }
  get dirty(): Locator {
    return this.page.getByTestId('dirty');
  }
  get problemCount(): Locator {
    return this.page.getByTestId('problem-count');
  }
  get labState(): Locator {
    return this.page.getByTestId('lab-state');
  }

  async section(id: 'overview' | 'servers' | 'groups' | 'services' | 'targetSets' | 'appliances' | 'problems' | 'history' | 'operate'): Promise<void> {
    await this.page.getByTestId(`nav-${id}`).click();
    await expect(this.page.getByTestId(`nav-${id}`)).toHaveAttribute('aria-current', 'page');
  }

  field(key: string): Locator {
    return this.page.locator(`[data-field="${key}"]`);
  }
  input(key: string): Locator {
    return this.field(key).locator('input, select').first();
  }
  messages(key: string): Locator {
    return this.field(key).getByTestId('field-message');
  }
  member(key: string): Locator {
    return this.page.locator(`[data-member="${key}"]`);
  }

  async save(): Promise<void> {
    await this.page.keyboard.press('Control+s');
    await expect(this.dirty).toBeHidden();
  }

  /** Opens a workspace file through the in-page Open dialog (Ctrl+O). */
  async open(path: string, expectName?: string): Promise<void> {
    await this.page.keyboard.press('Control+o');
    const dialog = this.page.getByRole('dialog', { name: 'Open a workspace' });
    await expect(dialog).toBeVisible();
    await dialog.getByTestId('open-path').fill(path);
    await dialog.getByTestId('open-submit').click();
    const discard = this.page.getByTestId('choice-discard');
    if (await discard.isVisible().catch(() => false)) await discard.click();
    await expect(dialog).toBeHidden();
    if (expectName) await expect(this.name).toHaveText(expectName);
  }

  async startLab(): Promise<void> {
    await this.page.keyboard.press('Alt+l');
    await expect(this.labState).toHaveText(/running/, { timeout: 15_000 });
  }

  async stopLab(): Promise<void> {
    if (!/running/.test((await this.labState.textContent()) ?? '')) return;
    await this.page.keyboard.press('Alt+l');
    await expect(this.labState).toHaveText(/off/, { timeout: 15_000 });
  }

  /** After a spec: the lab off and the demo workspace open again, the most recent one the next
   * spec expects. Best effort: a spec that failed may have left the page anywhere. */
  async reopenDemo(): Promise<void> {
    await this.stopLab().catch(() => undefined);
    await this.open(demoPath(), 'lab-site-a').catch(() => undefined);
  }

  /** Diff against the selected appliance: a first-time host key accepted, then the diff (or "no change") shown. */
  async diff(timeout = 20_000): Promise<void> {
    await this.page.getByTestId('diff-button').click();
    const key = this.page.getByTestId('host-key-accept');
    const diff = this.page.getByTestId('diff').or(this.page.getByTestId('no-change'));
    await expect(key.or(diff).first()).toBeVisible({ timeout });
    if (await key.isVisible()) await key.click();
    await expect(diff.first()).toBeVisible({ timeout });
  }

  async screenshot(name: string): Promise<void> {
    mkdirSync(SCREENSHOTS, { recursive: true });
    await this.page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
  }

  /** The page logged no errors: no CSP violation, no failed request, no exception. */
  expectNoErrors(): void {
    expect(this.errors).toEqual([]);
  }
}
