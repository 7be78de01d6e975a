// The change report: made by the main process from the text on screen (appliances asked what a
// push changes, unless offline), written as HTML and Markdown beside the workspace; the page
// shows where, a summary, and the Markdown to read before attaching it.
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ReportExport } from '../../../shared/api/report';
import { useApi } from '../api/inject';
import { errorSentence } from '../lib/errors';
import { useWorkspace } from './workspace';

export const useReport = defineStore('report', () => {
  const api = useApi();
  const workspaceStore = useWorkspace();
  const open = ref(false);
  const busy = ref(false);
  const offline = ref(false);
  const error = ref('');
  const result = shallowRef<ReportExport>();

  /** One click: open the dialog and make the report at once. */
  async function make(opts: { offline?: boolean } = {}): Promise<ReportExport | undefined> {
    if (!workspaceStore.loaded || busy.value) return undefined;
    if (opts.offline !== undefined) offline.value = opts.offline;
    open.value = true;
    busy.value = true;
    error.value = '';
    result.value = undefined;
    try {
      const r = await api.call('report.export', { ...(await workspaceStore.source()), offline: offline.value });
      result.value = r;
      return r;
    } catch (e) {
      error.value = errorSentence(e, 'make the change report');
      return undefined;
    } finally {
      busy.value = false;
    }
  }
  function close(): void {
    if (busy.value) return;
    open.value = false;
  }
  return { open, busy, offline, error, result, make, close };
});
