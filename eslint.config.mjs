// Lint, and above all the layering rules: a violation fails `npm test`.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import vue from 'eslint-plugin-vue';
import globals from 'globals';

const NODE_BUILTINS = ['fs', 'path', 'os', 'net', 'dgram', 'http', 'https', 'tls', 'child_process', 'crypto', 'worker_threads', 'stream', 'url', 'util', 'events', 'dns', 'zlib', 'readline', 'module', 'process', 'buffer', 'timers', 'perf_hooks', 'assert'];
const nodeBuiltins = [...NODE_BUILTINS, ...NODE_BUILTINS.map((m) => `node:${m}`), ...NODE_BUILTINS.map((m) => `node:${m}/*`)];

// `ws` names only a WebSocket: a workspace is `workspace`, its store `workspaceStore`, its file `workspaceFile`.
const WS_NAME = {
  selector: 'Identifier[name=/^ws$|^ws[A-Z0-9_]|Ws([A-Z0-9_]|$)/]',
  message: '`ws` names only a WebSocket: call a workspace `workspace`, its store `workspaceStore`, its file `workspaceFile`.',
};
const SOCKET_FILES = ['main/host/**', 'shared/api/client.ts', 'test/main/host/browser-host*.ts', 'test/helpers/host-client.ts', 'test/e2e/reconnect.spec.ts', 'test/main/host/parity.test.ts'];

const restrict = (patterns, paths = []) => ['error', { paths, patterns }];
const electron = [{ name: 'electron', message: 'Only main/app and main/preload may import electron.' }];

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'release/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'scratch/**', '**/*.cjs', 'bench/**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...vue.configs['flat/recommended'],
  {
    files: ['scripts/**/*.mjs', '*.mjs', '*.config.ts'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['**/*.vue'],
    languageOptions: { parserOptions: { parser: tseslint.parser } },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'off',
      'vue/multi-word-component-names': 'off',
      'vue/max-attributes-per-line': 'off',
      'vue/singleline-html-element-content-newline': 'off',
      'vue/html-self-closing': 'off',
      'no-restricted-syntax': ['error', WS_NAME],
    },
  },
  { files: ['**/*.vue'], rules: { 'vue/no-restricted-syntax': ['error', WS_NAME] } },
  { files: SOCKET_FILES, rules: { 'no-restricted-syntax': 'off' } },
  // shared/: pure TypeScript — nothing from main/ or renderer/, no Node built-ins, no electron.
  {
    files: ['shared/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        [
          { group: ['**/main/**', '**/main', '**/renderer/**', '**/renderer'], message: 'shared/ imports nothing from main/ or renderer/.' },
          { group: nodeBuiltins, message: 'shared/ is pure: no Node built-ins (the renderer uses it too).' },
        ],
        electron,
      ),
    },
  },
  // main/services, main/host, main/cli: behaviour without Electron.
  {
    files: ['main/services/**/*.ts', 'main/host/**/*.ts', 'main/cli/**/*.ts'],
    rules: {
      'no-restricted-imports': restrict(
        [
          { group: ['**/renderer/**', '**/renderer'], message: 'main/ never imports the renderer.' },
          { group: ['**/app/**', '**/app', '**/preload/**'], message: 'services, host and CLI do not depend on the Electron shell.' },
        ],
        electron,
      ),
    },
  },
  // renderer/: talks to main only through the contract client; no Node, no electron.
  {
    files: ['renderer/**/*.ts', 'renderer/**/*.vue'],
    languageOptions: { globals: globals.browser },
    rules: {
      'no-restricted-imports': restrict(
        [
          { group: ['**/main/**', '**/main'], message: 'The renderer reaches main only through the API client.' },
          { group: nodeBuiltins, message: 'The renderer runs sandboxed: no Node built-ins.' },
        ],
        electron,
      ),
    },
  },
);
