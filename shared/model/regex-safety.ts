// Patterns from a workspace run against an appliance's output. JavaScript's engine backtracks,
// so a pattern like ^(a+)+$ takes exponential time on a line such as "aaa…a!". This check is
// conservative: it refuses a repeated group that holds a repetition (star height above 1) or a
// choice whose branches could match the same text, and backreferences. What is left runs in
// polynomial time, and the matching itself is time-bounded (main/services/sync/commands/bounded.ts).

/** Longest pattern accepted: a CLI's prompt or error line needs far less. */
export const MAX_PATTERN_LENGTH = 512;

/** The JavaScript source and flags of a workspace pattern: a leading `(?i)` is case-insensitive. */
export function patternParts(source: string): { body: string; flags: string } {
  return source.startsWith('(?i)') ? { body: source.slice(4), flags: 'i' } : { body: source, flags: '' };
}

interface Frame {
  /** Any quantifier inside (even ?): repeating this group would nest repetitions. */
  repeats: boolean;
  /** A choice inside whose branches could match the same text. */
  risky: boolean;
  /** The branches so far, as text when each is plain characters only. */
  branches: string[];
  current: string;
  plain: boolean;
  allPlain: boolean;
  lookaround: boolean;
}

const frame = (lookaround = false): Frame => ({ repeats: false, risky: false, branches: [], current: '', plain: true, allPlain: true, lookaround });

/** Branches of plain text where two could match the same start (equal, or one a prefix). */
function overlapping(branches: string[]): boolean {
  return branches.some((a, i) => branches.some((b, j) => i !== j && b.startsWith(a)));
}

const NESTED = 'repeats a group that itself repeats or has branches matching the same text (like (a+)+, (a?b?)*, (a|ab)*): that can take exponential time on one line of output; repeat one item or a character class instead (e.g. [ab]+)';

/** Why `source` may not be used as a workspace pattern, or undefined when it may. */
export function patternProblem(source: string): string | undefined {
  if (source.length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  const { body, flags } = patternParts(source);
  try {
    new RegExp(body, flags);
  } catch {
    return 'must be a valid regular expression (JavaScript syntax; a leading (?i) ignores case)';
  }
  const stack: Frame[] = [frame()];
  /** What the next quantifier applies to: a group just closed, or a single item. */
  let last: Frame | 'item' | undefined;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    const top = stack[stack.length - 1]!;
    const item = (text: string | undefined) => {
      if (text === undefined) top.plain = false;
      else top.current += text;
      last = 'item';
    };
    if (c === '\\') {
      const n = body[i + 1] ?? '';
      if (/[1-9]/.test(n) || (n === 'k' && body[i + 2] === '<')) return 'must not use a backreference (\\1, \\k<name>): it can take exponential time';
      i++;
      // An escaped punctuation character is itself; \d, \s, \w, \x41… are more than one text.
      item(/[^A-Za-z0-9]/.test(n) ? n : undefined);
    } else if (c === '[') {
      let j = i + 1;
      if (body[j] === '^') j++;
      if (body[j] === ']') j++;
      while (j < body.length && body[j] !== ']') j += body[j] === '\\' ? 2 : 1;
      i = j;
      item(undefined);
    } else if (c === '(') {
      const head = /^\(\?(?::|[=!]|<[=!]|<[A-Za-z_$][\w$]*>)/.exec(body.slice(i));
      stack.push(frame(head !== null && /^\(\?<?[=!]/.test(head[0])));
      if (head) i += head[0].length - 1;
      last = undefined;
    } else if (c === ')') {
      const done = stack.pop()!;
      const parent = stack[stack.length - 1]!;
      done.branches.push(done.current);
      done.allPlain &&= done.plain;
      if (done.branches.length > 1 && (!done.allPlain || overlapping(done.branches))) done.risky = true;
      parent.repeats ||= done.repeats;
      parent.risky ||= done.risky;
      if (done.allPlain && done.branches.length === 1 && !done.lookaround) parent.current += done.branches[0];
      else parent.plain = false;
      last = done;
    } else if (c === '|') {
      top.branches.push(top.current);
      top.allPlain &&= top.plain;
      top.current = '';
      top.plain = true;
      last = undefined;
    } else if (c === '*' || c === '+' || c === '?' || (c === '{' && /^\{\d+(,\d*)?\}/.test(body.slice(i)))) {
      let many = c !== '?';
      if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(body.slice(i))!;
        many = m[2] === undefined ? Number(m[1]) > 1 : m[3] === '' || Number(m[3]) > 1;
        i += m[0].length - 1;
      }
      if (body[i + 1] === '?') i++; // lazy: the same backtracking
      if (many && typeof last === 'object' && (last.repeats || last.risky)) return NESTED;
      top.repeats = true;
      top.plain = false;
      last = undefined;
    } else {
      item(c === '.' || c === '^' || c === '$' ? undefined : c);
    }
  }
  return undefined;
}
