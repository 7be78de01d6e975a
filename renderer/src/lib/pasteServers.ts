// A pasted or imported list of servers (CSV or TSV: name, address, port, weight, description),
// checked line by line before anything is added: every problem names its line and column.
import { isIpAddress } from '../../../shared/model/address';

export interface PastedServer { line: number; name: string; address: string; port?: number; weight?: number; description?: string }
export interface PasteIssue { line: number; column: string; message: string }
export interface PasteResult { rows: PastedServer[]; errors: PasteIssue[]; warnings: PasteIssue[]; delimiter: ',' | '\t' | ';' }

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
type Column = 'name' | 'address' | 'port' | 'weight' | 'description';

/** Splits one CSV line, with "quoted, fields" and "" for a quote inside. */
function cells(line: string, d: string): string[] {
  if (d === '\t' || !line.includes('"')) return line.split(d).map((c) => c.trim());
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') { cur += '"'; i++; } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"' && !cur.trim()) { quoted = true; cur = ''; } else if (ch === d) { out.push(cur.trim()); cur = ''; } else cur += ch;
  }
  out.push(cur.trim());
  return out;
}

function delimiterOf(first: string): PasteResult['delimiter'] {
  if (first.includes('\t')) return '\t';
  if (!first.includes(',') && first.includes(';')) return ';';
  return ',';
}

/**
 * `taken`: names already in the workspace (a pasted name may not repeat one). `taken` addresses
 * with port: the same server twice is most likely a paste done twice, so it is a warning.
 */
export function parseServers(text: string, taken: Iterable<string> = []): PasteResult {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const firstReal = lines.find((l) => l.trim() && !l.trimStart().startsWith('#')) ?? '';
  const delimiter = delimiterOf(firstReal);
  const rows: PastedServer[] = [];
  const errors: PasteIssue[] = [];
  const warnings: PasteIssue[] = [];
  const used = new Set(taken);
  const mine = new Map<string, number>();
  const endpoints = new Map<string, number>();
  let header = true;
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim() || raw.trimStart().startsWith('#')) return;
    const c = cells(raw, delimiter);
    // A header row ("name,address,…") is skipped, once, at the top.
    if (header && c[0]?.toLowerCase() === 'name' && c[1]?.toLowerCase() === 'address') { header = false; return; }
    header = false;
    const bad = (column: Column, message: string) => errors.push({ line, column, message });
    const [name = '', address = '', port = '', weight = '', ...rest] = c;
    if (c.length < 2 || !address) {
      bad('address', `needs at least a name and an address (got ${c.length} ${c.length === 1 ? 'column' : 'columns'}; separate them with ${delimiter === '\t' ? 'a tab' : `"${delimiter}"`})`);
      return;
    }
    if (!NAME.test(name)) bad('name', `"${name}" is not a server name (1-63 letters, digits, ".", "_" or "-", starting with a letter or digit)`);
    else if (mine.has(name)) bad('name', `"${name}" is also on line ${mine.get(name)}`);
    else if (used.has(name)) bad('name', `a server named "${name}" is already in the workspace`);
    if (!isIpAddress(address)) bad('address', `"${address}" is not an IPv4 or IPv6 address`);
    const row: PastedServer = { line, name, address };
    if (port) {
      const n = Number(port);
      if (!Number.isInteger(n) || n < 1 || n > 65535) bad('port', `"${port}" is not a port (1-65535)`);
      else row.port = n;
    }
    if (weight) {
      const n = Number(weight);
      if (!Number.isInteger(n) || n < 0 || n > 65535) bad('weight', `"${weight}" is not a weight (0-65535)`);
      else row.weight = n;
    }
    const description = rest.join(delimiter === '\t' ? ' ' : `${delimiter} `).trim();
    if (description) row.description = description;
    mine.set(name, mine.get(name) ?? line);
    const ep = `${address}:${row.port ?? ''}`;
    if (endpoints.has(ep)) warnings.push({ line, column: 'address', message: `${address}${row.port ? ` port ${row.port}` : ''} is also on line ${endpoints.get(ep)}` });
    else endpoints.set(ep, line);
    rows.push(row);
  });
  return { rows, errors, warnings, delimiter };
}

type Op = { op: 'addMany'; list: (string | number)[]; items: unknown[] };

/**
 * The edits that add the rows as servers, and as members of group number `group` when given:
 * one list edit each (the document worker appends them in one go), one undo step.
 */
export function addOps(rows: PastedServer[], group?: number): Op[] {
  const ops: Op[] = [{ op: 'addMany', list: ['servers'], items: rows.map((r) => ({ name: r.name, address: r.address, ...(r.description ? { description: r.description } : {}) })) }];
  if (group !== undefined) {
    ops.push({ op: 'addMany', list: ['groups', group, 'members'], items: rows.map((r) => ({ server: r.name, ...(r.port ? { port: r.port } : {}), ...(r.weight !== undefined ? { weight: r.weight } : {}) })) });
  }
  return ops;
}
