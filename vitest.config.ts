import { configDefaults, defineConfig } from 'vitest/config';
import vue from '@vitejs/plugin-vue';

// Three files at a time on 2 cores (LBDESK_TEST_WORKERS to change it): most files spend their
// time waiting on servers, children and timers. Every file binds port 0 or loopback addresses
// of its own. The files that bind the demo workspace's fixed ports, time against the
// whole machine (load, detection bounds) or build network namespaces run after the rest, one at
// a time. Plain Node for shared/ and main/, happy-dom for renderer components.
const workers = Math.max(1, Number(process.env.LBDESK_TEST_WORKERS ?? 3));
const serialNode = [
  'test/main/app/app-shell.test.ts',
  'test/main/app/menu.test.ts',
  'test/main/app/quit.test.ts',
  'test/main/app/single-instance.test.ts',
  'test/main/app/smoke.test.ts',
  'test/main/app/start-fallback.test.ts',
  'test/main/app/window-state.test.ts',
  'test/main/services/compare/compare.test.ts',
  'test/main/cli/demo.test.ts',
  'test/main/services/engine/native-load.test.ts',
  'test/main/services/lab/pair.test.ts',
  'test/main/host/parity.test.ts',
  'test/main/services/drivers/vrrp-netns.test.ts',
  'test/main/services/engine/native.test.ts',
  'test/main/services/engine/thread.test.ts',
  'test/main/services/health/detection.test.ts',
];
const serialRenderer = ['test/renderer/compare-panel.test.ts', 'test/renderer/lab-store.test.ts', 'test/renderer/pair-strip.test.ts'];
const nodeFiles = ['test/main/**/*.test.ts', 'test/shared/**/*.test.ts', 'test/repo/**/*.test.ts'];
// The second pass under Electron's Node (LBDESK_SECOND_NODE=1, scripts/test.sh): every file of
// test/main/services, test/main/cli and test/main/host that touches the runtime (sockets, TLS,
// crypto, child processes, fs, workers, the native addon). These prove only logic no runtime changes, so they run once, under Node 20:
const sameOnAnyNode: Record<string, string> = {
  'test/main/services/drivers/golden.test.ts': 'rendered text pinned against files',
  'test/main/services/drivers/haproxy.test.ts': 'haproxy renderer, text in and out',
  'test/main/services/drivers/keepalived.test.ts': 'keepalived renderer, text in and out',
  'test/main/services/drivers/registry.test.ts': 'which driver renders which appliance',
  'test/main/services/drivers/vrrp-sections.test.ts': 'section markers in rendered text',
  'test/main/services/drivers/template.test.ts': 'vendor templates rendered to text',
  'test/main/services/import/sections.test.ts': 'section parser',
  'test/main/services/engine/algorithms.test.ts': 'member choice arithmetic',
  'test/main/services/engine/config.test.ts': 'workspace to engine config mapping',
  'test/main/services/engine/heartbeat.test.ts': 'load-line parser',
  'test/main/services/engine/limiter.test.ts': 'event merging on given timestamps',
  'test/main/services/files/guard.test.ts': 'first-line workspace check on strings',
  'test/main/services/health/members.test.ts': 'workspace to member list mapping',
  'test/main/services/health/state.test.ts': 'health state machine on given results',
  'test/main/cli/usage.test.ts': 'the CLI\'s argument wording (commander); the CLI under Node 24 runs in the other CLI files',
  // Long comparisons whose subject is another program; their Node-side parts run under Node 24 in
  // the files named.
  'test/main/services/compare/compare.test.ts': 'the lab against real HAProxy: check semantics; probes under Node 24 in health/*',
  'test/main/services/drivers/vrrp-netns.test.ts': 'keepalived\'s VRRP between namespaces on rendered text: keepalived is the subject',
  'test/main/services/engine/native-load.test.ts': 'the C relay on its own thread and loop; loading and forwarding under Node 24 in engine/native, forwarding, runtime-io',
};
const secondNode = process.env.LBDESK_SECOND_NODE === '1';
const secondNodeFiles = ['test/main/services/**/*.test.ts', 'test/main/cli/**/*.test.ts', 'test/main/host/**/*.test.ts'];
const nodeInclude = secondNode ? secondNodeFiles : nodeFiles;
const nodeExclude = [...configDefaults.exclude, ...(secondNode ? Object.keys(sameOnAnyNode) : [])];
// A test that runs the CLI several times waits on process starts, which a busy machine stretches.
const nodeTest = { environment: 'node', testTimeout: 60_000, hookTimeout: 60_000 } as const;

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    projects: [
      { test: { ...nodeTest, name: 'node', include: nodeInclude, exclude: [...nodeExclude, ...serialNode], maxWorkers: workers, sequence: { groupOrder: 0 } } },
      {
        plugins: [vue()],
        test: { name: 'renderer', environment: 'happy-dom', include: ['test/renderer/**/*.test.ts'], exclude: [...configDefaults.exclude, ...serialRenderer], maxWorkers: workers, sequence: { groupOrder: 0 } },
      },
      { test: { ...nodeTest, name: 'node-serial', include: secondNode ? serialNode.filter((f) => /^test\/main\/(services|cli|host)\//.test(f)) : serialNode, exclude: nodeExclude, maxWorkers: 1, sequence: { groupOrder: 1 } } },
      { plugins: [vue()], test: { name: 'renderer-serial', environment: 'happy-dom', include: serialRenderer, maxWorkers: 1, sequence: { groupOrder: 2 } } },
    ],
  },
});
