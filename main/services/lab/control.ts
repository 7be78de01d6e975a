// The daemon's control channel (`lbdesk serve --control PATH`): a UNIX socket, mode 0600, one JSON
// request per line and one JSON answer per line. `{"op":"state"}` gives every group member with
// its admin state, health, open sessions, weight and the checker's last words;
// `{"op":"set","admin":"drain|maint|ready","members":[{"group","server","port"}]}` changes them at
// once, without a reload (all or nothing: an unknown member changes nothing). `generation` counts
// the workspaces applied (a SIGHUP reload adds one).
import { chmod, lstat, unlink } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { ADMIN_STATES, type AdminState } from '../../../shared/api/operate';
import { memberKey } from '../../../shared/api/types';
import type { Lab } from '.';

export interface ControlMember {
  group: string;
  server: string;
  port?: number;
  admin: AdminState;
  /** The checker's state (available, degraded, unavailable, unknown, disabled). */
  state: string;
  score: number;
  /** The checker's words for its last result. */
  reason: string;
  /** Open connections to it, over every service that uses its group. */
  sessions: number;
  weight?: number;
}

export type ControlAnswer =
  | { ok: true; pid: number; generation: number; workspace?: string; members: ControlMember[] }
  | { ok: true; pid: number; generation: number; set: string[] }
  | { ok: false; error: string };

/** A request is one line of at most this many bytes. */
const MAX_LINE = 1 << 20;

export interface ControlOptions {
  lab: Lab;
  /** Serialises a change with the daemon's reloads (serve's chain). */
  run: <T>(f: () => Promise<T>) => Promise<T>;
}

export async function answer(line: string, o: ControlOptions): Promise<ControlAnswer> {
  let req: { op?: unknown; admin?: unknown; members?: unknown };
  try {
    req = JSON.parse(line) as typeof req;
  } catch {
    return { ok: false, error: 'not a JSON line' };
  }
  const workspace = o.lab.workspace;
  if (!workspace) return { ok: false, error: 'the lab is not running' };
  if (req.op === 'state') return { ok: true, pid: process.pid, generation: o.lab.generation, ...(o.lab.status().path ? { workspace: o.lab.status().path } : {}), members: await state(o.lab) };
  if (req.op !== 'set') return { ok: false, error: `unknown op ${JSON.stringify(req.op)} (state or set)` };
  if (typeof req.admin !== 'string' || !(ADMIN_STATES as readonly string[]).includes(req.admin)) return { ok: false, error: 'admin must be ready, drain or maint' };
  if (!Array.isArray(req.members) || req.members.length === 0) return { ok: false, error: 'members: a list of {group, server, port}' };
  const known = new Set(workspace.groups.flatMap((g) => g.members.map((m) => memberKey({ group: g.name, server: m.server, port: m.port }))));
  const keys: string[] = [];
  const labels: string[] = [];
  for (const m of req.members as { group?: unknown; server?: unknown; port?: unknown }[]) {
    const ok = m && typeof m.group === 'string' && typeof m.server === 'string' && (m.port === undefined || Number.isInteger(m.port));
    const label = ok ? `${m.group as string}/${m.server as string}${m.port === undefined ? '' : `:${m.port as number}`}` : JSON.stringify(m);
    const key = ok ? memberKey({ group: m.group as string, server: m.server as string, port: m.port as number | undefined }) : '';
    if (!known.has(key)) return { ok: false, error: `unknown member ${label}: not in the workspace the daemon runs; nothing was changed` };
    keys.push(key);
    labels.push(label);
  }
  const admin = req.admin as AdminState;
  await o.run(() => o.lab.setAdmin(keys, admin));
  return { ok: true, pid: process.pid, generation: o.lab.generation, set: labels };
}

async function state(lab: Lab): Promise<ControlMember[]> {
  const stats = await lab.stats();
  const sessions = new Map<string, number>();
  const weights = new Map<string, number>();
  for (const p of stats?.pools ?? []) {
    for (const s of p.servers) {
      sessions.set(s.key, (sessions.get(s.key) ?? 0) + s.active);
      weights.set(s.key, s.weight);
    }
  }
  const health = new Map(lab.status().members.map((m) => [m.key, m]));
  const out: ControlMember[] = [];
  for (const g of lab.workspace?.groups ?? []) {
    for (const m of g.members) {
      const key = memberKey({ group: g.name, server: m.server, port: m.port });
      const h = health.get(key);
      const weight = weights.get(key) ?? m.weight;
      out.push({
        group: g.name, server: m.server, ...(m.port === undefined ? {} : { port: m.port }),
        admin: lab.adminOf(key), state: h?.state ?? 'unknown', score: h?.score ?? 0, reason: h?.reason ?? 'not checked by the lab',
        sessions: sessions.get(key) ?? 0, ...(weight === undefined ? {} : { weight }),
      });
    }
  }
  return out;
}

/** Listens on `path` (a stale socket left by a daemon that died is replaced; a live one is refused). */
export async function listenControl(path: string, o: ControlOptions): Promise<Server> {
  const found = await lstat(path).catch(() => undefined);
  if (found) {
    if (!found.isSocket()) throw new Error(`--control ${path}: a file that is not a socket is there`);
    if (await answers(path)) throw new Error(`--control ${path}: another daemon answers on it`);
    await unlink(path);
  }
  const server = createServer({ allowHalfOpen: true }, (c) => serve(c, o));
  const mask = process.umask(0o177);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
  } finally {
    process.umask(mask);
  }
  await chmod(path, 0o600);
  return server;
}

function serve(c: Socket, o: ControlOptions): void {
  let buf = '';
  let chain = Promise.resolve();
  c.setEncoding('utf8');
  c.on('error', () => undefined);
  c.on('data', (d: string) => {
    buf += d;
    if (buf.length > MAX_LINE && !buf.includes('\n')) {
      c.end(`${JSON.stringify({ ok: false, error: 'request line too long' })}\n`);
      return;
    }
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (!line) continue;
      // Answers go out in the order asked.
      chain = chain.then(async () => {
        const a = await answer(line, o).catch((err: Error) => ({ ok: false, error: err.message }) as ControlAnswer);
        if (!c.destroyed) c.write(`${JSON.stringify(a)}\n`);
      });
    }
  });
  // The client is done asking: answer what it asked, then close.
  c.on('end', () => void chain.then(() => c.end()));
}

/** One request to a control socket on this machine (`state --lab`): its answer, or why not. */
export function askControl(path: string, request: object, timeoutMs = 10_000): Promise<ControlAnswer> {
  return new Promise((resolve, reject) => {
    const c = connect(path);
    let out = '';
    const timer = setTimeout(() => c.destroy(new Error(`no answer within ${timeoutMs / 1000}s`)), timeoutMs);
    c.setEncoding('utf8');
    c.on('connect', () => c.end(`${JSON.stringify(request)}\n`));
    c.on('data', (d: string) => (out += d));
    c.on('error', (err: NodeJS.ErrnoException) => (clearTimeout(timer), reject(new Error(err.code === 'ENOENT' ? 'no socket there (is lbdesk serve running with --control?)' : err.code === 'ECONNREFUSED' ? 'nothing listens on it' : err.message))));
    c.on('close', () => {
      clearTimeout(timer);
      const line = out.split('\n').find((l) => l.trim());
      try {
        if (line) return resolve(JSON.parse(line) as ControlAnswer);
      } catch {
        // not lbdesk's answer: said below
      }
      reject(new Error(line ? 'it answered something that is not an lbdesk control channel' : 'it closed without answering'));
    });
  });
}

function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(path);
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });
}
