import { defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';

// Two projects: plain Node for shared/ and main/, happy-dom for renderer components.
export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/unit/**/*.test.ts', 'test/services/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/security/**/*.test.ts', 'test/electron/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [vue()],
        test: {
          name: 'renderer',
          environment: 'happy-dom',
          include: ['test/renderer/**/*.test.ts'],
        },
      },
    ],
  },
});
