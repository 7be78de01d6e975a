// App-level actions shared by the header, the menus and the keyboard: open, save, save as, with
// the "unsaved changes" question, and what this shell offers (native dialogs or in-page ones).
import { defineStore } from 'pinia';
import { computed, ref, shallowRef, watch } from 'vue';
import type { AppInfo } from '../../../shared/api/contract';
import { useApi } from '../api/inject';
import { errorSentence } from '../lib/errors';
import { baseName, dirName } from '../lib/format';
import { keyFor } from '../lib/shortcuts';
import { useWorkspace } from './workspace';
import { useLab } from './lab';

export interface Choice { id: string; label: string; primary?: boolean; danger?: boolean }
export interface Question { title: string; text: string; choices: Choice[]; resolve(id: string): void }

const OPEN_PATH_KEY = 'lbdesk.openPath';

function rememberedPath(): string | undefined {
  try {
    return sessionStorage.getItem(OPEN_PATH_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export const useApp = defineStore('app', () => {
  const api = useApi();
  const workspaceStore = useWorkspace();
  const info = shallowRef<AppInfo>();
  const ready = ref(false);
  const question = shallowRef<Question>();
  /** In-page file dialogs (browser mode has no native ones). */
  const fileDialog = ref<{ mode: 'open' | 'saveAs'; suggested?: string; resolve(path: string | null): void }>();

  function ask(title: string, text: string, choices: Choice[]): Promise<string> {
    return new Promise((resolve) => {
      question.value = {
        title, text, choices,
        resolve: (id) => {
          question.value = undefined;
          resolve(id);
        },
      };
    });
  }

  async function init(): Promise<void> {
    try {
      info.value = await api.call('app.info', {});
    } catch (e) {
      workspaceStore.message = errorSentence(e, 'reach lbdesk');
    }
    // A reload (or this tab's earlier visit) comes back to the file the user was working on; the
    // host's start file is for a fresh tab. sessionStorage is per tab, as the open file is.
    await workspaceStore.start(rememberedPath() ?? info.value?.startPath);
    if (info.value?.warnings?.length) workspaceStore.notice = [workspaceStore.notice, ...info.value.warnings].filter(Boolean).join(' ');
    ready.value = true;
    void useLab().refresh();
  }

  watch(() => workspaceStore.path, (p) => {
    try {
      if (p) sessionStorage.setItem(OPEN_PATH_KEY, p);
    } catch {
      /* storage refused (private mode): a reload opens the start file */
    }
  });

  /** Applies the open workspace to the running lab; asks first when the lab runs another file. */
  async function applyToLab(): Promise<boolean> {
    const lab = useLab();
    if (lab.runsOther) {
      const answer = await ask('Run this workspace instead?', `The lab runs ${baseName(lab.status?.path ?? '')}. Applying ${baseName(workspaceStore.path)} closes its listeners and runs this workspace instead.`, [
        { id: 'apply', label: `Run ${baseName(workspaceStore.path)}`, danger: true },
        { id: 'cancel', label: 'Cancel', primary: true },
      ]);
      if (answer !== 'apply') return false;
    }
    return lab.apply();
  }

  /** Before replacing the open workspace: save, discard or stay. True when it is fine to go on. */
  async function settleDirty(): Promise<boolean> {
    await workspaceStore.settle();
    if (!workspaceStore.dirty) return true;
    const answer = await ask('Unsaved changes', `${baseName(workspaceStore.path) || 'This workspace'} has changes that are not saved.`, [
      { id: 'save', label: 'Save', primary: true },
      { id: 'discard', label: 'Discard changes', danger: true },
      { id: 'cancel', label: 'Cancel' },
    ]);
    if (answer === 'save') return workspaceStore.save();
    return answer === 'discard';
  }

  function pickFile(mode: 'open' | 'saveAs', suggested?: string): Promise<string | null> {
    return new Promise((resolve) => {
      fileDialog.value = {
        mode,
        suggested,
        resolve: (p) => {
          fileDialog.value = undefined;
          resolve(p);
        },
      };
    });
  }

  async function chooseOpenPath(): Promise<string | null> {
    if (info.value?.shell === 'electron') {
      try {
        return await api.call('dialog.openFile', {});
      } catch (e) {
        workspaceStore.message = errorSentence(e, 'show the open dialog');
        return null;
      }
    }
    return pickFile('open');
  }

  async function open(path?: string): Promise<boolean> {
    const target = path ?? (await chooseOpenPath());
    if (!target) return false;
    if (!(await settleDirty())) return false;
    return workspaceStore.open(target);
  }

  async function openDemo(): Promise<boolean> {
    if (!(await settleDirty())) return false;
    return workspaceStore.openDemo();
  }

  async function save(): Promise<boolean> {
    if (!workspaceStore.path) return saveAs();
    return workspaceStore.save();
  }

  async function saveAs(): Promise<boolean> {
    let target: string | null;
    if (info.value?.shell === 'electron') {
      try {
        target = await api.call('dialog.saveFile', { suggested: workspaceStore.path || undefined });
      } catch (e) {
        workspaceStore.message = errorSentence(e, 'show the save dialog');
        return false;
      }
    } else target = await pickFile('saveAs');
    if (!target) return false;
    return workspaceStore.save(target);
  }

  /** A new, empty workspace file: pick where, write a minimal valid file, open it. */
  async function newWorkspace(): Promise<boolean> {
    if (!(await settleDirty())) return false;
    let target: string | null;
    if (info.value?.shell === 'electron') {
      try {
        target = await api.call('dialog.saveFile', { suggested: 'new-site.yaml' });
      } catch (e) {
        workspaceStore.message = errorSentence(e, 'show the save dialog');
        return false;
      }
    } else target = await pickFile('saveAs', 'new-site.yaml');
    if (!target) return false;
    const exists = await api.call('workspace.browse', { dir: dirName(target) }).then((l) => l.entries.some((e) => e.path === target || e.name === baseName(target)), () => false);
    if (exists) {
      const answer = await ask('Replace the file?', `${baseName(target)} already exists. A new workspace would replace it.`, [
        { id: 'replace', label: 'Replace', danger: true },
        { id: 'cancel', label: 'Cancel', primary: true },
      ]);
      if (answer !== 'replace') return false;
    }
    const name = baseName(target).replace(/\.ya?ml$/i, '').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'new-site';
    const text = [
      `# ${name}: one site's load balancing, edited with lbdesk.`,
      '# Real servers, server groups (with their health check), virtual services, IPFE target',
      '# sets and the appliances they are pushed to. Comments you add here are kept.',
      'lbdesk: 1',
      `name: ${name}`,
      '',
    ].join('\n');
    try {
      await api.call('workspace.write', { path: target, text });
    } catch (e) {
      workspaceStore.message = errorSentence(e, `create ${target}`);
      return false;
    }
    return workspaceStore.open(target);
  }

  /**
   * Shows the file as it is on disk. With unsaved edits the choices are to drop them or keep
   * them in another file first: Save here would overwrite what changed on disk (or stop at the
   * conflict and come back to this question).
   */
  async function reload(): Promise<boolean> {
    const file = workspaceStore.path;
    if (workspaceStore.dirty) {
      const answer = await ask('Reload from disk?', `${baseName(file) || 'This workspace'} on disk is not what you have here: reloading shows the file on disk and drops your unsaved changes.`, [
        { id: 'reload', label: 'Discard mine and reload', danger: true },
        { id: 'saveAs', label: 'Save mine as…' },
        { id: 'cancel', label: 'Cancel', primary: true },
      ]);
      if (answer === 'saveAs') return (await saveAs()) && workspaceStore.open(file);
      if (answer !== 'reload') return false;
    }
    return workspaceStore.open(file);
  }

  /** The lab's keys where the window runs (F5 is the browser's own in a tab). */
  const labKey = computed(() => keyFor('lab', info.value?.shell === 'electron'));
  const labApplyKey = computed(() => keyFor('labApply', info.value?.shell === 'electron'));
  return { info, labKey, labApplyKey, ready, question, fileDialog, ask, init, settleDirty, open, openDemo, newWorkspace, save, saveAs, reload, applyToLab };
});
