// What manage: sections appliances keep of the box's own file (frontends that use a group, its
// balance), read by main from the file as last read or pushed: context shown, never edited.
import { defineStore } from 'pinia';
import { computed, shallowRef, watch } from 'vue';
import type { KeptContext } from '../../../shared/api/contract';
import { useApi } from '../api/inject';
import { useWorkspace } from './workspace';

export interface KeptUse { appliance: string; frontend: string; kind: string; binds: string[]; how: string }

export const useKept = defineStore('kept', () => {
  const api = useApi();
  const workspaceStore = useWorkspace();
  const contexts = shallowRef<KeptContext[]>([]);

  async function refresh(): Promise<void> {
    const path = workspaceStore.path;
    if (!path) return void (contexts.value = []);
    const sections = ((workspaceStore.raw.appliances as Record<string, unknown>[] | undefined) ?? []).some((a) => a?.manage === 'sections');
    if (!sections) return void (contexts.value = []);
    contexts.value = await api.call('appliance.kept', { path, text: await workspaceStore.text() }).catch(() => []);
  }
  watch(() => [workspaceStore.path, JSON.stringify(workspaceStore.raw.appliances ?? [])], () => void refresh(), { immediate: true });

  /** Per group: the kept frontends that send to it. */
  const uses = computed(() => {
    const out = new Map<string, KeptUse[]>();
    for (const c of contexts.value) {
      for (const f of c.frontends) {
        for (const u of f.uses) out.set(u.group, [...(out.get(u.group) ?? []), { appliance: c.appliance, frontend: f.name, kind: f.kind, binds: f.binds, how: u.how }]);
      }
    }
    return out;
  });
  /** Per group: the box's balance line, with its appliance. */
  const balance = computed(() => {
    const out = new Map<string, { appliance: string; balance: string }[]>();
    for (const c of contexts.value) for (const [g, b] of Object.entries(c.balance)) out.set(g, [...(out.get(g) ?? []), { appliance: c.appliance, balance: b }]);
    return out;
  });
  return { contexts, uses, balance, refresh };
});
