// What-if in the window: the user picks what fails (servers, groups, appliances); main answers
// from the text on screen (`lab.whatif`), and the Overview highlights what loses capacity.
import { defineStore } from 'pinia';
import { computed, ref, shallowRef } from 'vue';
import type { WhatIfPool, WhatIfReport } from '../../../shared/api/whatif';
import { useApi } from '../api/inject';
import { errorSentence } from '../lib/errors';
import { useWorkspace } from './workspace';

type Obj = Record<string, unknown>;
const names = (v: unknown): string[] => (Array.isArray(v) ? v : []).map((x) => (x as Obj | null)?.name).filter((n): n is string => typeof n === 'string' && n !== '');

export const useWhatIf = defineStore('whatif', () => {
  const api = useApi();
  const workspaceStore = useWorkspace();
  const open = ref(false);
  const failing = ref<string[]>([]);
  const busy = ref(false);
  const error = ref('');
  const result = shallowRef<WhatIfReport>();

  /** What can be picked: servers, groups and appliances by name (members as GROUP/SERVER can be typed). */
  const choices = computed(() => {
    const raw = workspaceStore.raw as Obj;
    return { servers: names(raw.servers), groups: names(raw.groups), appliances: names(raw.appliances) };
  });
  const byPool = computed(() => new Map<string, WhatIfPool>((result.value?.pools ?? []).map((p) => [p.pool, p])));
  const failedKeys = computed(() => new Set(result.value?.failed.flatMap((f) => f.members) ?? []));

  async function run(): Promise<void> {
    error.value = '';
    if (!failing.value.length || !workspaceStore.loaded) {
      result.value = undefined;
      return;
    }
    busy.value = true;
    try {
      result.value = await api.call('lab.whatif', { ...(await workspaceStore.source()), fail: [...failing.value] });
    } catch (e) {
      result.value = undefined;
      error.value = errorSentence(e, 'work out what-if');
    } finally {
      busy.value = false;
    }
  }
  async function add(name: string): Promise<void> {
    const n = name.trim();
    if (!n || failing.value.includes(n)) return;
    failing.value = [...failing.value, n];
    await run();
  }
  async function remove(name: string): Promise<void> {
    failing.value = failing.value.filter((n) => n !== name);
    await run();
  }
  function clear(): void {
    failing.value = [];
    result.value = undefined;
    error.value = '';
  }
  function close(): void {
    clear();
    open.value = false;
  }
  return { open, failing, busy, error, result, choices, byPool, failedKeys, run, add, remove, clear, close };
});
