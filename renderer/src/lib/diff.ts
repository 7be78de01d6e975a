// A unified diff split into lines the diff view can colour and count.
export type DiffKind = 'add' | 'del' | 'hunk' | 'meta' | 'ctx';
export interface DiffLine { kind: DiffKind; text: string; oldNo?: number; newNo?: number }

export function parseUnifiedDiff(text: string): { lines: DiffLine[]; added: number; removed: number } {
  const lines: DiffLine[] = [];
  let added = 0;
  let removed = 0;
  let oldNo = 0;
  let newNo = 0;
  for (const raw of text.split('\n')) {
    if (raw === '' && lines.length && lines.at(-1)?.text === '') continue;
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(raw);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      lines.push({ kind: 'hunk', text: raw });
    } else if (raw.startsWith('+++') || raw.startsWith('---') || raw.startsWith('diff ') || /^index[: ]/i.test(raw) || /^={10,}$/.test(raw) || raw.startsWith('\\')) {
      lines.push({ kind: 'meta', text: raw });
    } else if (raw.startsWith('+')) {
      added++;
      lines.push({ kind: 'add', text: raw, newNo: newNo++ });
    } else if (raw.startsWith('-')) {
      removed++;
      lines.push({ kind: 'del', text: raw, oldNo: oldNo++ });
    } else {
      lines.push({ kind: 'ctx', text: raw, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  while (lines.length && lines.at(-1)!.text === '') lines.pop();
  return { lines, added, removed };
}
