import { defineConfig, devices } from '@playwright/test';

/**
 * The dashboard in a real browser: Debian's Chromium (scripts/chromium.sh installs it; Playwright
 * downloads no browser), against the stack BROWSER_STACK names (`standalone` or `distributed`),
 * which the global setup starts. Run through scripts/browser-tests.sh (`npm run test:browser`).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/lib/chromium/chromium';

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.browser.ts',
  globalSetup: './support/global-setup.ts',
  // One stack, shared: the scenarios run one after the other, as one user would.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 120_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  // One folder per stack: the two suites run side by side (scripts/browser-tests.sh).
  outputDir: `./test-results/${process.env.BROWSER_STACK ?? 'standalone'}`,
  use: {
    ...devices['Desktop Chrome'],
    viewport: { width: 1366, height: 768 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: CHROMIUM,
      // The machine's network is closed: Chromium's own background connections only fail.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
