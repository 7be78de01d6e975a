// `show stat` (CSV) and `show servers state` read together: each server of each backend as the
// box sees it, and the workspace members mapped onto them.
import type { AdminState, BoxHealth, MemberState, WorkspaceMember } from './types';

export interface BoxServer {
  backend: string;
  server: string;
  /** srv_id: what a stick table's entries point at. */
  id: number;
  address: string;
  /** 0 when the server has no port (the client's port is used). */
  port: number;
  admin: AdminState;
  health: BoxHealth;
  sessions: number;
  weight: number;
  check?: string;
}

/** srv_admin_state bits (HAProxy's SRV_ADMF_*): any MAINT bit, else any DRAIN bit. */
const MAINT_BITS = 0x01 | 0x02 | 0x04 | 0x20 | 0x40;
const DRAIN_BITS = 0x08 | 0x10;
/** srv_check_state: CHK_ST_CONFIGURED. */
const CHECK_CONFIGURED = 0x02;

function csvRows(text: string): Map<string, string>[] {
  const lines = text.split('\n').filter((l) => l.trim());
  const header = (lines[0] ?? '').replace(/^#\s*/, '').split(',');
  return lines.slice(1).map((l) => {
    const f = l.split(',');
    return new Map(header.map((h, i) => [h, f[i] ?? '']));
  });
}

function stateRows(text: string): Map<string, string>[] {
  const lines = text.split('\n').filter((l) => l.trim());
  const head = lines.find((l) => l.startsWith('#'));
  if (!head) return [];
  const header = head.replace(/^#\s*/, '').split(/\s+/);
  return lines.filter((l) => !l.startsWith('#') && /\s/.test(l)).map((l) => {
    const f = l.trim().split(/\s+/);
    return new Map(header.map((h, i) => [h, f[i] ?? '']));
  });
}

/** `L7OK/200 in 2ms`; a failure adds the box's reason (`L4CON in 0ms: Connection refused`). */
function checkWords(row: Map<string, string>): string | undefined {
  const status = (row.get('check_status') ?? '').replace(/^\* /, '');
  if (!status) return undefined;
  const code = row.get('check_code');
  const ms = row.get('check_duration');
  const last = row.get('last_chk');
  const ok = /OK$/.test(status);
  return `${status}${code ? `/${code}` : ''}${ms ? ` in ${ms}ms` : ''}${!ok && last ? `: ${last}` : ''}`;
}

/** Both answers joined by `backend/server`; `show stat` may be '' (placement only: no sessions, no checks). */
export function parseBox(showStat: string, serversState: string): Map<string, BoxServer> {
  const out = new Map<string, BoxServer>();
  const stats = new Map(csvRows(showStat).map((r) => [`${r.get('pxname')}/${r.get('svname')}`, r]));
  for (const st of stateRows(serversState)) {
    const backend = st.get('be_name') ?? '';
    const server = st.get('srv_name') ?? '';
    const row = stats.get(`${backend}/${server}`) ?? new Map<string, string>();
    const adminBits = Number(st.get('srv_admin_state') ?? 0);
    const checked = (Number(st.get('srv_check_state') ?? 0) & CHECK_CONFIGURED) !== 0;
    const op = Number(st.get('srv_op_state') ?? 0);
    const check = checkWords(row);
    out.set(`${backend}/${server}`, {
      backend, server,
      id: Number(st.get('srv_id')) || 0,
      address: st.get('srv_addr') ?? '',
      port: Number(st.get('srv_port')) || 0,
      admin: adminBits & MAINT_BITS ? 'maint' : adminBits & DRAIN_BITS ? 'drain' : 'ready',
      // srv_op_state: 0 stopped; 1 starting (slowstart), 2 running, 3 stopping (soft-stop) are all up.
      health: !checked ? 'no-check' : op === 0 ? 'down' : 'up',
      sessions: Number(row.get('scur') || 0),
      weight: Number(st.get('srv_uweight') ?? row.get('weight') ?? 0),
      ...(check ? { check } : {}),
    });
  }
  return out;
}

/** Worst first: one member on several backends (several services on one group) reads as its worst. */
const ADMIN_ORDER: AdminState[] = ['maint', 'drain', 'ready'];
const HEALTH_ORDER: BoxHealth[] = ['down', 'unknown', 'up', 'no-check'];

/**
 * The box's servers of one member: in the backends of the services on its group (lbdesk renders
 * one backend per service) or the backend of the group's name (imported), at its address and port.
 */
export function boxServersOf(box: Map<string, BoxServer>, member: WorkspaceMember, backends: string[]): BoxServer[] {
  const inBackends = [...box.values()].filter((s) => backends.includes(s.backend));
  const byAddress = inBackends.filter((s) => s.address === member.address && (member.port === undefined ? s.port === 0 : s.port === member.port));
  return byAddress.length ? byAddress : inBackends.filter((s) => s.server === member.server && (member.port === undefined || s.port === member.port));
}

export function memberState(member: WorkspaceMember, servers: BoxServer[], backends: string[]): MemberState {
  const base = { group: member.group, server: member.server, ...(member.port === undefined ? {} : { port: member.port }) };
  if (servers.length === 0) {
    const at = `${member.address}${member.port === undefined ? '' : `:${member.port}`}`;
    const why = backends.length
      ? `the box has no server ${at} in backend ${backends.join(' or ')}`
      : `no service of this appliance uses group ${member.group}`;
    return { ...base, health: 'unknown', why };
  }
  const worst = <T>(order: T[], values: T[]) => order.find((o) => values.includes(o)) ?? values[0]!;
  return {
    ...base,
    admin: worst(ADMIN_ORDER, servers.map((s) => s.admin)),
    health: worst(HEALTH_ORDER, servers.map((s) => s.health)),
    sessions: servers.reduce((n, s) => n + s.sessions, 0),
    weight: servers[0]!.weight,
    ...(servers[0]!.check ? { check: servers[0]!.check } : {}),
    on: servers.map((s) => `${s.backend}/${s.server}`),
  };
}
