// User preferences kept in this browser profile: theme, and the layout the user chose.
import { defineStore } from 'pinia';
import { computed, ref, watch } from 'vue';

export type ThemeChoice = 'system' | 'light' | 'dark';
const KEY = 'lbdesk.prefs';

export type DiffMode = 'unified' | 'split';
interface Saved { theme?: ThemeChoice; sidebarCollapsed?: boolean; diffMode?: DiffMode; panelCollapsed?: boolean }

function load(): Saved {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? '{}') as Saved;
  } catch {
    return {};
  }
}

export const usePrefs = defineStore('prefs', () => {
  const saved = load();
  const theme = ref<ThemeChoice>(saved.theme ?? 'system');
  const sidebarCollapsed = ref(saved.sidebarCollapsed ?? false);
  const diffMode = ref<DiffMode>(saved.diffMode ?? 'unified');
  /** The editor beside a list (and the Overview's side panel) folded away for room. */
  const panelCollapsed = ref(saved.panelCollapsed ?? false);
  const systemDark = ref(typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches);
  if (typeof matchMedia === 'function') {
    matchMedia('(prefers-color-scheme: dark)').addEventListener?.('change', (e) => (systemDark.value = e.matches));
  }
  const effectiveTheme = computed<'light' | 'dark'>(() => (theme.value === 'system' ? (systemDark.value ? 'dark' : 'light') : theme.value));

  function apply(): void {
    const root = document.documentElement;
    if (theme.value === 'system') root.removeAttribute('data-theme');
    else root.setAttribute('data-theme', theme.value);
  }
  apply();
  watch([theme, sidebarCollapsed, diffMode, panelCollapsed], () => {
    apply();
    try {
      localStorage.setItem(KEY, JSON.stringify({ theme: theme.value, sidebarCollapsed: sidebarCollapsed.value, diffMode: diffMode.value, panelCollapsed: panelCollapsed.value }));
    } catch {
      // Private mode or full storage: the choice lasts for this session only.
    }
  });

  /** system → the opposite of what the system shows → back to system. */
  function toggleTheme(): void {
    if (theme.value === 'system') theme.value = systemDark.value ? 'light' : 'dark';
    else theme.value = 'system';
  }

  return { theme, sidebarCollapsed, diffMode, panelCollapsed, effectiveTheme, toggleTheme };
});
