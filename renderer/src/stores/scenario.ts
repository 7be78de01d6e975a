// A scenario on the running lab (serve --scenario's runner, in the host): the files beside the
// workspace, and each step and PASS/FAIL line of the run as it happens, then the summary.
import { defineStore } from 'pinia';
import { onScopeDispose, ref } from 'vue';
import type { EngineEvent } from '../../../shared/api/engine';
import { useApi } from '../api/inject';
import { errorSentence } from '../lib/errors';
import { clockTime } from '../lib/format';

export interface ScenarioLine { text: string; kind: 'step' | 'pass' | 'fail' | 'summary' }

export const useScenario = defineStore('scenario', () => {
  const api = useApi();
  const files = ref<{ path: string; name: string; steps: number }[]>([]);
  const running = ref(false);
  const lines = ref<ScenarioLine[]>([]);
  const error = ref('');
  /** The scenario whose lines are shown ('' before the first run). */
  let name = '';

  const off = api.on('lab.event', (e: EngineEvent) => {
    if (!name) return;
    const t = clockTime(Date.parse(e.ts));
    if (e.type === 'expect') {
      lines.value.push({ text: `${t} ${e.ok ? 'PASS' : 'FAIL'} ${e.member} ${e.state} within ${e.withinMs} ms: ${e.reason}`, kind: e.ok ? 'pass' : 'fail' });
    } else if (e.type === 'notice' && e.message.startsWith(`scenario ${name}`)) {
      const summary = /expected transitions passed|^scenario \S+ stopped: /.test(e.message);
      lines.value.push({ text: `${t} ${e.message.slice(`scenario ${name}`.length).replace(/^: /, '').trim()}`, kind: summary ? 'summary' : 'step' });
    }
  });
  onScopeDispose(off);

  async function list(): Promise<void> {
    error.value = '';
    try {
      files.value = await api.call('lab.scenarios', {});
    } catch (e) {
      error.value = errorSentence(e, 'list the scenarios');
    }
  }

  async function run(path: string): Promise<void> {
    const file = files.value.find((f) => f.path === path);
    if (!file || running.value) return;
    name = file.name;
    lines.value = [];
    error.value = '';
    running.value = true;
    try {
      await api.call('lab.scenario', { path: file.path });
    } catch (e) {
      error.value = errorSentence(e, `run ${file.name}`);
    } finally {
      running.value = false;
    }
  }

  async function stop(): Promise<void> {
    await api.call('lab.scenarioStop', {}).catch((e: unknown) => (error.value = errorSentence(e, 'stop the scenario')));
  }

  return { files, running, lines, error, list, run, stop };
});
