import { configDefaults, defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';

// Two files at a time (LBDESK_TEST_WORKERS to change it): every file binds port 0 or loopback
// addresses of its own. The files that bind the demo workspace's fixed ports, time against the
// whole machine (load, detection bounds) or build network namespaces run after the rest, one at
// a time. Plain Node for shared/ and main/, happy-dom for renderer components.
const workers = Math.max(1, Number(process.env.LBDESK_TEST_WORKERS ?? 2));
const serialNode = [
  'test/electron/**/*.test.ts',
  'test/integration/compare.test.ts',
  'test/integration/demo-cli.test.ts',
  'test/integration/native-load.test.ts',
  'test/integration/pair-lab.test.ts',
  'test/integration/parity.test.ts',
  'test/services/drivers/vrrp-netns.test.ts',
  'test/services/health/detection.test.ts',
];
const serialRenderer = ['test/renderer/compare-panel.test.ts', 'test/renderer/lab-store.test.ts', 'test/renderer/pair-strip.test.ts'];
const nodeFiles = ['test/unit/**/*.test.ts', 'test/services/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/security/**/*.test.ts', 'test/electron/**/*.test.ts'];
// A test that runs the CLI several times waits on process starts, which a busy machine stretches.
const nodeTest = { environment: 'node', testTimeout: 60_000, hookTimeout: 60_000 } as const;

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      { test: { ...nodeTest, name: 'node', include: nodeFiles, exclude: [...configDefaults.exclude, ...serialNode], maxWorkers: workers, sequence: { groupOrder: 0 } } },
      {
        plugins: [vue()],
        test: { name: 'renderer', environment: 'happy-dom', include: ['test/renderer/**/*.test.ts'], exclude: [...configDefaults.exclude, ...serialRenderer], maxWorkers: workers, sequence: { groupOrder: 0 } },
      },
      { test: { ...nodeTest, name: 'node-serial', include: serialNode, maxWorkers: 1, sequence: { groupOrder: 1 } } },
      { plugins: [vue()], test: { name: 'renderer-serial', environment: 'happy-dom', include: serialRenderer, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
