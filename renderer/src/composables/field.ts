// The glue between one form control and one workspace field: the draft text the user is typing,
// the value in the document, and the problems the shared validation reports for it.
import { computed, ref, watch, type ComputedRef, type Ref } from 'vue';
import { useWorkspace, type KeyedProblem } from '../stores/workspace';
import { pathKey, type Path } from '../lib/tree';

let seq = 0;
/** Unique DOM ids for label/control/hint links. */
export function uid(prefix = 'f'): string {
  return `${prefix}-${++seq}`;
}

export interface Codec {
  parse(text: string): unknown;
  format(value: unknown): string;
}

const same = (a: unknown, b: unknown) => a === b || JSON.stringify(a) === JSON.stringify(b);

export interface FieldModel {
  key: ComputedRef<string>;
  value: ComputedRef<unknown>;
  draft: Ref<string>;
  input(text: string): void;
  /** Leaving the field: it shows the value as stored (a pasted " 127.0.0.1 " without its spaces). */
  blur(): void;
  problems: ComputedRef<KeyedProblem[]>;
  invalid: ComputedRef<boolean>;
}

export interface FieldOptions {
  /** A list typed as one field (`80, 443`): problems of its entries (`ports.1`) show under it too. */
  elements?: boolean;
}

/** An entry's problem told under its list field: which entry it is, then what is wrong. */
function elementProblem(p: KeyedProblem, prefix: string, list: unknown): KeyedProblem {
  const i = Number(p.key.slice(prefix.length).split('.')[0]);
  const v = Array.isArray(list) ? list[i] : undefined;
  const what = v === undefined || v === null || typeof v === 'object' ? `entry ${i + 1}` : `${JSON.stringify(v)} (entry ${i + 1})`;
  return { ...p, message: `${what}: ${p.message}` };
}

export function useFieldModel(path: () => Path, codec: Codec, write?: (value: unknown) => void, opts: FieldOptions = {}): FieldModel {
  const workspaceStore = useWorkspace();
  const key = computed(() => pathKey(path()));
  const value = computed(() => workspaceStore.get(path()));
  const draft = ref(codec.format(value.value));
  // Follow the document (undo, another editor, a rename) unless the draft already means the same.
  watch(value, (v) => {
    if (!same(codec.parse(draft.value), v)) draft.value = codec.format(v);
  });
  watch(key, () => (draft.value = codec.format(value.value)));
  const problems = computed(() => {
    const own = workspaceStore.problemsAt(key.value);
    if (!opts.elements) return own;
    const prefix = `${key.value}.`;
    const inner = workspaceStore.problems.filter((p) => p.key.startsWith(prefix)).map((p) => elementProblem(p, prefix, value.value));
    return inner.length ? [...own, ...inner] : own;
  });
  const invalid = computed(() => problems.value.some((p) => p.severity === 'error'));
  return {
    key,
    value,
    draft,
    problems,
    invalid,
    blur() {
      if (same(codec.parse(draft.value), value.value)) draft.value = codec.format(value.value);
    },
    input(text: string) {
      draft.value = text;
      const next = codec.parse(text);
      if (same(next, value.value)) return;
      if (write) write(next);
      else workspaceStore.set(path(), next);
    },
  };
}

/** Text: empty removes an optional field. */
export const textCodec = (optional = true, trim = false): Codec => ({
  // `trim`: addresses, hosts, paths and commands, where a pasted " 127.0.0.1" means the address.
  parse: (t) => {
    const s = trim ? t.trim() : t;
    return s === '' && optional ? undefined : s;
  },
  format: (v) => (v === undefined || v === null ? '' : String(v)),
});

/** Numbers: anything that is not a number is kept as typed so validation can name it. */
export const numberCodec = (optional = true): Codec => ({
  parse: (t) => {
    const s = t.trim();
    if (s === '') return optional ? undefined : '';
    return /^[-+]?\d+(\.\d+)?$/.test(s) ? Number(s) : t;
  },
  format: (v) => (v === undefined || v === null ? '' : String(v)),
});

/** Durations: a bare number is seconds; `500ms`, `10s`, `5m`, `1h` stay text. */
export const durationCodec = (optional = true): Codec => ({
  parse: (t) => {
    const s = t.trim();
    if (s === '') return optional ? undefined : '';
    return /^\d+(\.\d+)?$/.test(s) ? Number(s) : s;
  },
  format: (v) => (v === undefined || v === null ? '' : String(v)),
});

/** Lists typed as `80, 443`: numbers stay numbers. */
export const listCodec = (numbers: boolean, optional = true): Codec => ({
  parse: (t) => {
    const parts = t.split(/[\s,]+/).filter(Boolean);
    if (parts.length === 0) return optional ? undefined : [];
    return parts.map((p) => (numbers && /^\d+$/.test(p) ? Number(p) : p));
  },
  format: (v) => (Array.isArray(v) ? v.join(', ') : v === undefined || v === null ? '' : String(v)),
});
