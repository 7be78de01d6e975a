import { defineConfig } from '@playwright/test';

// Browser e2e against browser mode (`lbdesk serve --ui` / `lbdesk demo`) in Debian's Chromium.
export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results/playwright',
  workers: 1,
  retries: 0,
  timeout: 60_000,
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  globalSetup: './test/e2e/global-setup.ts',
  use: {
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
    },
  },
});
