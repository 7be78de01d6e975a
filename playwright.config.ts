import { defineConfig } from '@playwright/test';

// Browser e2e against browser mode (`lbdesk demo`, the same host as `serve --ui`) in Debian's
// Chromium. Screenshots the tests take are kept under test-results/screenshots.
export default defineConfig({
  testDir: 'test/e2e',
  outputDir: 'test-results/playwright',
  workers: 1,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: 'test-results/playwright.json' }]],
  globalSetup: './test/e2e/global-setup.ts',
  use: {
    viewport: { width: 1440, height: 900 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'],
    },
  },
});
