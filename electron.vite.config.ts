import { resolve } from 'node:path';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import vue from '@vitejs/plugin-vue';

// zod ships comments Rollup cannot place; harmless, so keep the build output readable.
const onwarn = (warning: { code?: string; message: string }, warn: (w: { code?: string; message: string }) => void) => {
  if (warning.code === 'INVALID_ANNOTATION') return;
  warn(warning);
};

// Explicit entries for each top-level part: main (Electron), preload (sandboxed, fully bundled),
// renderer (Vue). The CLI and browser host are bundled by scripts/build.mjs with esbuild.
export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      outDir: 'out/main',
      rollupOptions: { onwarn, input: { index: resolve(__dirname, 'main/app/index.ts') } },
    },
  },
  preload: {
    // A sandboxed preload cannot require packages: bundle everything, emit CommonJS.
    build: {
      // electron-vite 5 externalizes dependencies by default; a sandboxed preload can only
      // require('electron'), so zod (via the contract) must be inlined.
      externalizeDeps: false,
      outDir: 'out/preload',
      rollupOptions: {
        onwarn,
        input: { index: resolve(__dirname, 'main/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'renderer'),
    plugins: [vue()],
    build: {
      outDir: 'out/renderer',
      rollupOptions: { onwarn, input: { index: resolve(__dirname, 'renderer/index.html') } },
      chunkSizeWarningLimit: 2000,
    },
  },
});
