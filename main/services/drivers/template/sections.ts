// A rendered CLI template in its sections. A marker line `! lbdesk:NAME` (or `# lbdesk:NAME`)
// starts a section; lines before the first marker belong to `config`.
//   prologue  sent first (enter configuration mode, turn paging off)
//   config    the configuration itself: sent line by line, uploaded in upload mode, diffed
//   epilogue  sent after the config (leave configuration mode, save)
//   rollback  sent only after an error in config or epilogue
import { DEFAULT_COMMENT } from '../box-patterns';

export const SECTION_NAMES = ['prologue', 'config', 'epilogue', 'rollback'] as const;
export type SectionName = (typeof SECTION_NAMES)[number];

export interface CliLine {
  /** 1-based line number in the rendered text (what `lbdesk render` prints). */
  n: number;
  text: string;
  section: SectionName;
}

export interface Sections {
  lines: Record<SectionName, CliLine[]>;
  /** The config section as a file (upload mode, diff). */
  configText: string;
  /** Bad or repeated markers, each with its line number. */
  problems: string[];
}

export const MARKER_RE = /^\s*[!#]+\s*lbdesk:([A-Za-z-]+)\s*$/;

export function splitSections(text: string): Sections {
  const lines: Record<SectionName, CliLine[]> = { prologue: [], config: [], epilogue: [], rollback: [] };
  const problems: string[] = [];
  const seen = new Set<SectionName>();
  let section: SectionName = 'config';
  const all = text.split('\n');
  if (all.length && all[all.length - 1] === '') all.pop();
  all.forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    const m = MARKER_RE.exec(line);
    if (m) {
      const name = m[1]!.toLowerCase() as SectionName;
      if (!SECTION_NAMES.includes(name)) {
        problems.push(`line ${i + 1}: unknown section marker "lbdesk:${m[1]}" (known: ${SECTION_NAMES.join(', ')})`);
      } else if (seen.has(name)) {
        problems.push(`line ${i + 1}: section "${name}" appears twice`);
      } else {
        seen.add(name);
        section = name;
      }
      return;
    }
    lines[section].push({ n: i + 1, text: line, section });
  });
  const configText = lines.config.map((l) => l.text).join('\n');
  return { lines, configText: configText ? `${configText}\n` : '', problems };
}

/** The lines a session sends: no blank lines, no comments. */
export function commandsOf(lines: CliLine[], comment: RegExp = DEFAULT_COMMENT): CliLine[] {
  return lines.filter((l) => l.text.trim() !== '' && !comment.test(l.text));
}

/** Text reduced to what the appliance keeps: no comments, no blank lines, no trailing blanks. */
export function meaningful(text: string, comment: RegExp = DEFAULT_COMMENT): string {
  return text
    .split('\n')
    .map((l) => l.replace(/\s+$/, ''))
    .filter((l) => l.trim() !== '' && !comment.test(l))
    .join('\n');
}
