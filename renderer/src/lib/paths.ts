// Paths typed into the file dialogs: absolute, `~` (the home folder) or relative to the folder
// shown, made into one absolute path (`/tmp/x/site-b.yaml` typed in ~/demo is /tmp/x/site-b.yaml).

const ABSOLUTE = /^(?:\/|[A-Za-z]:[\\/]|\\\\)/;

function sepOf(p: string): '/' | '\\' {
  return p.includes('\\') && !p.includes('/') ? '\\' : '/';
}

/** `a/./b/../c//d` → `a/c/d`, keeping the root (`/`, `C:\`, `\\server`). */
export function normalise(path: string): string {
  const sep = sepOf(path);
  const root = ABSOLUTE.exec(path)?.[0] ?? '';
  const out: string[] = [];
  for (const part of path.slice(root.length).split(/[\\/]+/)) {
    if (!part || part === '.') continue;
    if (part === '..') out.pop();
    else out.push(part);
  }
  return `${root}${out.join(sep)}`;
}

/** The absolute path a typed path names, from the folder shown (`dir`) and the home folder. */
export function resolvePath(typed: string, dir: string, home: string): string {
  const t = typed.trim();
  if (t === '~' || t.startsWith('~/') || t.startsWith('~\\')) return normalise(`${home}${sepOf(home)}${t.slice(1)}`);
  if (ABSOLUTE.test(t)) return normalise(t);
  return normalise(`${dir}${sepOf(dir)}${t}`);
}

/** A workspace file name ends in .yaml or .yml; a bare name gets .yaml. */
export function withYaml(path: string): string {
  return /\.ya?ml$/i.test(path) ? path : `${path}.yaml`;
}

/** Folders of the recent files, most recent first, each once. */
export function recentFolders(files: string[], dirName: (p: string) => string, max = 6): string[] {
  return [...new Set(files.map(dirName))].slice(0, max);
}
