// Terminal output as plain lines: escape sequences dropped, backspaces and carriage-return
// overwrites applied (pagers erase their `--More--` that way), trailing blanks trimmed.

// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]|\x1b[=>78cDEHM]/g;

function backspaces(text: string): string {
  if (!text.includes('\b')) return text;
  const out: string[] = [];
  for (const ch of text) {
    if (ch === '\b') {
      if (out.length && out[out.length - 1] !== '\n') out.pop();
    } else {
      out.push(ch);
    }
  }
  return out.join('');
}

export function cleanScreen(raw: string): string {
  const text = backspaces(raw.replace(ESCAPES, ''));
  return text
    .split('\n')
    .map((line) => {
      const l = line.replace(/\r+$/, '');
      const cr = l.lastIndexOf('\r');
      // eslint-disable-next-line no-control-regex
      return (cr >= 0 ? l.slice(cr + 1) : l).replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '').replace(/\s+$/, '');
    })
    .join('\n');
}

/** Last line, unfinished (no newline yet): where prompts, pagers and questions appear. */
export function lastLine(raw: string): string {
  const text = backspaces(raw.replace(ESCAPES, ''));
  const nl = text.lastIndexOf('\n');
  const line = text.slice(nl + 1);
  const cr = line.replace(/\r+$/, '').lastIndexOf('\r');
  const tail = cr >= 0 ? line.replace(/\r+$/, '').slice(cr + 1) : line.replace(/\r+$/, '');
  // eslint-disable-next-line no-control-regex
  return tail.replace(/[\x00-\x08\x0b-\x1f\x7f]/g, '');
}
