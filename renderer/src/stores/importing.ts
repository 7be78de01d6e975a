// Import in the app: a config file into a new workspace, or an appliance's running config into
// the open one. The main process imports (the CLI's importer); the page shows the report and, for
// an import into this workspace, applies the edits as one undo step.
import { defineStore } from 'pinia';
import { ref, shallowRef } from 'vue';
import type { ImportApplianceResult, ImportDriver, ImportFileResult } from '../../../shared/api/import';
import { useApi } from '../api/inject';
import type { ArgsOf } from '../../../shared/api/contract';
import { secretName } from '../../../shared/api/secrets';
import { errorSentence } from '../lib/errors';
import { useWorkspace } from './workspace';
import { useApp } from './app';
import { useNav } from './nav';
import type { EditOp } from '../document/protocol';

export type ImportMode = 'new' | 'into';

export const useImporting = defineStore('importing', () => {
  const api = useApi();
  const workspaceStore = useWorkspace();
  /** The dialog, when open: which import, and the appliance asked for. */
  const mode = ref<ImportMode>();
  const appliance = ref('');
  const busy = ref(false);
  const error = ref('');
  const result = shallowRef<ImportFileResult | ImportApplianceResult>();

  function start(m: ImportMode, name?: string): void {
    mode.value = m;
    appliance.value = name ?? '';
    result.value = undefined;
    error.value = '';
  }
  function close(): void {
    mode.value = undefined;
    result.value = undefined;
  }

  async function detect(config: string): Promise<ImportDriver | undefined> {
    try {
      return (await api.call('import.detect', { config })).driver ?? undefined;
    } catch {
      return undefined;
    }
  }

  async function run<T extends ImportFileResult | ImportApplianceResult>(what: string, call: () => Promise<T>): Promise<T | undefined> {
    busy.value = true;
    error.value = '';
    try {
      const r = await call();
      result.value = r;
      return r;
    } catch (e) {
      error.value = errorSentence(e, what);
      return undefined;
    } finally {
      busy.value = false;
    }
  }

  const fromFile = (args: { config: string; driver: ImportDriver; out: string; appliance?: string }) =>
    run(`import ${args.config}`, () => api.call('import.file', args));

  /** Pulls the box's config over SSH into a new workspace whose appliance is that box. */
  const fromBox = (args: ArgsOf<'import.box'>) =>
    run(`import from ${args.box.host}`, () => api.call('import.box', args));

  /** A password for the box the import pulls from, in the secret store under the appliance's name. */
  async function storePassword(appliance: string, value: string): Promise<boolean> {
    try {
      await api.call('secrets.set', { name: secretName.appliancePassword(appliance), value });
      return true;
    } catch (e) {
      error.value = errorSentence(e, 'store the password');
      return false;
    }
  }

  /** Pulls the appliance's config and plans the merge on the workspace as it is on screen. */
  async function fromAppliance(name: string): Promise<ImportApplianceResult | undefined> {
    const text = await workspaceStore.text();
    return run(`import from ${name}`, () => api.call('import.appliance', { path: workspaceStore.path, text, appliance: name }));
  }

  /** The merge as one undo step: Ctrl+Z takes the whole import back; Save writes it. */
  function applyMerge(r: ImportApplianceResult): void {
    if (!r.edits.length) return;
    workspaceStore.transact(`import from ${r.appliance}`, r.edits as EditOp[]);
    workspaceStore.notice = `Imported from ${r.appliance}: ${r.summary}. Undo (Ctrl+Z) takes it back; Save writes it to the file.`;
    close();
    useNav().go('groups');
  }

  /** Opens the new workspace (asking about unsaved changes here first). */
  async function openNew(path: string): Promise<void> {
    if (await useApp().open(path)) close();
  }

  return { mode, appliance, busy, error, result, start, close, detect, fromFile, fromBox, storePassword, fromAppliance, applyMerge, openNew };
});
