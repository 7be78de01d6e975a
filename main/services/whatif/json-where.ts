// Where JSON text goes wrong: the offset of the first character the grammar does not allow
// (JSON.parse names no position in Node 20's messages, and errors here are file:line:col).
export function jsonErrorOffset(text: string): number {
  let i = 0;
  const skipSpace = () => { while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++; };
  const fail = (): never => { throw i; };
  const lit = (word: string) => { if (text.startsWith(word, i)) i += word.length; else fail(); };
  const str = () => {
    i++;
    while (i < text.length && text[i] !== '"') {
      if (text[i] === '\\') i++;
      else if (text.charCodeAt(i) < 0x20) fail();
      i++;
    }
    if (i >= text.length) fail();
    i++;
  };
  const num = () => {
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (!m) fail();
    i += m![0].length;
  };
  const value = (): void => {
    skipSpace();
    const c = text[i];
    if (c === '{') return group('}', () => { skipSpace(); if (text[i] !== '"') fail(); str(); skipSpace(); if (text[i] !== ':') fail(); i++; value(); });
    if (c === '[') return group(']', value);
    if (c === '"') return str();
    if (c === 't') return lit('true');
    if (c === 'f') return lit('false');
    if (c === 'n') return lit('null');
    return num();
  };
  const group = (close: string, item: () => void) => {
    i++;
    skipSpace();
    if (text[i] === close) { i++; return; }
    for (;;) {
      item();
      skipSpace();
      if (text[i] === ',') { i++; continue; }
      if (text[i] === close) { i++; return; }
      fail();
    }
  };
  try {
    value();
    skipSpace();
    return i < text.length ? i : -1;
  } catch (at) {
    return at as number;
  }
}
