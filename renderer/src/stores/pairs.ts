// The rolling push to an HA pair (docs/ha.md), as the single push goes: a dry run of the pair at
// this revision first (what each box would do: the pair's diff), the steps as they come, and the
// commit-confirmed countdown with Confirm on each box that waits for it.
import { defineStore } from 'pinia';
import { computed, onScopeDispose, ref, shallowRef } from 'vue';
import type { PairPushResult, PushProgress } from '../../../shared/api/contract';
import { useApi } from '../api/inject';
import { errorSentence } from '../lib/errors';
import { list, str } from '../lib/derive';
import { useAppliances } from './appliances';
import { useWorkspace } from './workspace';

export const usePairPush = defineStore('pairs', () => {
  const api = useApi();
  const workspaceStore = useWorkspace();
  const apps = useAppliances();

  /** The pair being pushed, else ''. */
  const busy = ref('');
  const progress = ref<PushProgress[]>([]);
  const result = shallowRef<PairPushResult>();
  const error = ref('');
  /** The pair whose dry run would apply, and the revision it was made of. */
  const tried = ref<{ pair: string; rev: number }>();
  const confirming = ref('');
  const confirmMessage = ref('');
  const now = ref(Date.now());

  /** Each appliance of a pair (its boxes and their keepalived). */
  function appliancesOf(pair: string): Set<string> {
    const p = list(workspaceStore.raw.pairs).find((x) => str(x.name) === pair);
    return new Set(list(p?.members).flatMap((m) => [str(m.appliance), str(m.keepalived)]).filter((a) => a !== ''));
  }

  let under: Set<string> = new Set();
  const offs = [
    api.on('push.progress', (p) => {
      if (busy.value && under.has(p.appliance)) progress.value = [...progress.value, p];
    }),
  ];
  const ticker = setInterval(() => {
    if (result.value?.boxes.some((b) => b.confirmBy !== undefined)) now.value = Date.now();
  }, 250);
  onScopeDispose(() => {
    offs.forEach((f) => f());
    clearInterval(ticker);
  });

  /** Why `pair` cannot be pushed now, in a sentence; '' when it can. A dry run is never held back but by errors. */
  function gate(pair: string, dryRun = false): string {
    if (workspaceStore.errors.length) return 'The workspace has errors: fix them first.';
    if (dryRun) return '';
    if (apps.windowError) return apps.windowError;
    if (result.value?.boxes.some((b) => b.confirmBy !== undefined)) return 'A push waits for Confirm: confirm it, or let the boxes roll it back.';
    if (tried.value?.pair !== pair || tried.value.rev !== workspaceStore.rev) return 'Dry run first: it shows what each box would do with the workspace as it is now.';
    return '';
  }

  async function push(pair: string, dryRun = false): Promise<PairPushResult | undefined> {
    if (busy.value || gate(pair, dryRun)) return undefined;
    busy.value = pair;
    under = appliancesOf(pair);
    progress.value = [];
    result.value = undefined;
    error.value = '';
    confirmMessage.value = '';
    const confirmWithinMs = !dryRun && apps.useConfirm ? Number(apps.confirmSeconds) * 1000 : undefined;
    try {
      const rev = workspaceStore.rev;
      const r = await api.call('appliance.pushPair', { ...(await workspaceStore.source()), pair, dryRun, ...(confirmWithinMs ? { confirmWithinMs } : {}) });
      result.value = r;
      tried.value = dryRun && r.outcome === 'would-apply' ? { pair, rev } : undefined;
      now.value = Date.now();
      return r;
    } catch (e) {
      error.value = errorSentence(e, dryRun ? `try a dry run on pair ${pair}` : `push pair ${pair}`);
      return undefined;
    } finally {
      busy.value = '';
    }
  }

  /** Seconds left to confirm a box, while it waits. */
  function secondsLeft(box: string): number | undefined {
    const at = result.value?.boxes.find((b) => b.name === box)?.confirmBy;
    return at === undefined ? undefined : Math.max(0, Math.ceil((at - now.value) / 1000));
  }

  /** Keeps what a box runs: each of its appliances that waits is confirmed. */
  async function confirm(box: string): Promise<boolean> {
    const r = result.value;
    const b = r?.boxes.find((x) => x.name === box);
    if (!r || !b || confirming.value) return false;
    confirming.value = box;
    try {
      const src = await workspaceStore.source();
      // Every push of a box waiting for Confirm was commit-confirmed: each one that wrote waits.
      const waiting = b.steps.filter((s) => s.outcome === 'applied').map((s) => s.appliance);
      const said: string[] = [];
      let all = true;
      for (const appliance of waiting) {
        const c = await api.call('appliance.confirm', { ...src, appliance });
        said.push(c.reason);
        all &&= c.confirmed;
      }
      confirmMessage.value = said.join(' ');
      if (all) result.value = { ...r, boxes: r.boxes.map((x) => (x.name === box ? { ...x, confirmBy: undefined } : x)) };
      return all;
    } catch (e) {
      confirmMessage.value = errorSentence(e, `confirm the push to ${box}`);
      return false;
    } finally {
      confirming.value = '';
    }
  }

  const pending = computed(() => result.value?.boxes.filter((b) => b.confirmBy !== undefined).map((b) => b.name) ?? []);
  return { busy, progress, result, error, confirming, confirmMessage, pending, gate, push, secondsLeft, confirm };
});
