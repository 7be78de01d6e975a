// The lbdesk daemon's runtime: its control channel (`lbdesk serve --control PATH`, the
// appliance's statsSocket, else /run/lbdesk/control.sock), JSON lines over a UNIX socket on the
// box, reached with socat or python3 through the appliance's SSH connection (one exec per ask).
// Not `lbdesk ctl` on the box: a Node start per ask would cost more than the round trip itself,
// and the socket needs nothing of lbdesk's version on the box but its protocol.
import type { ControlAnswer, ControlMember } from '../lab/control';
import { shq, tail } from '../sync/quote';
import type { BoxHealth, MemberState, Runtime, RuntimeContext, RuntimeDriver, SetOutcome, WorkspaceMember } from './types';
import { RuntimeError } from './haproxy';

export const DEFAULT_CONTROL = '/run/lbdesk/control.sock';

/**
 * The tool (probed on the first ask: socat, else python3), then the daemon's answers and
 * `@lbdesk END rc`. nc is not used: OpenBSD's nc does not end its half of the connection at
 * the end of its input without -N, and the daemon answers once the client is done asking.
 */
const ASK = `s=$1; tool=$2; shift 2
if [ ! -S "$s" ]; then
  if [ -e "$s" ]; then echo "@lbdesk NOTSOCK"; else echo "@lbdesk NOSOCK"; fi
  exit 0
fi
if [ "$tool" = probe ]; then
  if command -v socat >/dev/null 2>&1; then tool=socat
  elif command -v python3 >/dev/null 2>&1; then tool=python3
  else echo "@lbdesk NOTOOL"; exit 0; fi
  echo "@lbdesk TOOL $tool"
fi
for c do printf '%s\\n' "$c"; done | case $tool in
  socat) socat -t 30 - "UNIX-CONNECT:$s" ;;
  *) python3 -I -S -c "$PY" "$s" ;;
esac
printf '\\n@lbdesk END %s\\n' "$?"`;

const PY = `import socket, sys
try:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(sys.argv[1])
    s.sendall(sys.stdin.buffer.read())
    s.shutdown(socket.SHUT_WR)
    while True:
        d = s.recv(65536)
        if not d:
            break
        sys.stdout.buffer.write(d)
except OSError as e:
    sys.stderr.write("%s: %s\\n" % (sys.argv[1], e.strerror or e))
    sys.exit(1)`;

const HEALTH: Record<string, BoxHealth> = { available: 'up', degraded: 'up', unavailable: 'down', disabled: 'no-check', unknown: 'unknown' };

function openLbdesk(ctx: RuntimeContext): Runtime {
  const path = ctx.appliance.statsSocket ?? DEFAULT_CONTROL;
  let tool: string | undefined;

  const ask = async (requests: object[]): Promise<ControlAnswer[]> => {
    const r = await ctx.remote.run(`PY=${shq(PY)}\n${ASK}`, [path, tool ?? 'probe', ...requests.map((q) => JSON.stringify(q))], 60_000);
    let out = r.stdout;
    const first = /^@lbdesk (NOSOCK|NOTSOCK|NOTOOL|TOOL (\S+))\n/.exec(out);
    if (first?.[1] === 'NOSOCK') throw new RuntimeError(`no control socket at ${path} on the box (is lbdesk serve running with --control ${path}? set statsSocket on appliance ${ctx.appliance.name} for another path)`);
    if (first?.[1] === 'NOTSOCK') throw new RuntimeError(`${path} on the box is not a socket`);
    if (first?.[1] === 'NOTOOL') throw new RuntimeError(`the box has nothing to reach the control socket ${path} with (no socat, no python3)`);
    if (first?.[2]) {
      tool = first[2];
      out = out.slice(first[0].length);
    }
    const end = /\n?@lbdesk END (\d+)\n?$/.exec(out);
    const lines = (end ? out.slice(0, end.index) : out).split('\n').filter((l) => l.trim());
    if (!end || end[1] !== '0' || lines.length < requests.length) {
      const stderr = r.stderr.replace(/^.*socat\[\d+\] E connect\(.*\): (.*)$/gm, `${path}: $1`);
      const said = tail(stderr) || (end?.[1] === '0' ? 'the daemon closed the channel before answering' : `exit ${end?.[1] ?? r.code ?? r.signal}`);
      const hint = /refused/i.test(said) ? ' (nothing listens on it: is lbdesk serve running?)' : '';
      throw new RuntimeError(`cannot reach the control socket ${path}${tool ? ` with ${tool}` : ''}: ${said}${hint}`);
    }
    return lines.slice(0, requests.length).map((l) => {
      try {
        return JSON.parse(l) as ControlAnswer;
      } catch {
        throw new RuntimeError(`the control socket ${path} answered something that is not lbdesk's: ${l.slice(0, 80)}`);
      }
    });
  };
  const one = async (request: object) => {
    const [a] = await ask([request]);
    if (!a!.ok) throw new RuntimeError(`the daemon at ${path}: ${a!.error}`);
    return a!;
  };
  const sameMember = (m: WorkspaceMember, c: ControlMember) => c.group === m.group && c.server === m.server && c.port === m.port;

  return {
    async via() {
      if (!tool) await one({ op: 'state' });
      return `control socket ${path}${tool ? ` via ${tool}` : ''}`;
    },
    async state(members): Promise<MemberState[]> {
      const a = await one({ op: 'state' });
      const box = 'members' in a ? a.members : [];
      return members.map((m) => {
        const base = { group: m.group, server: m.server, ...(m.port === undefined ? {} : { port: m.port }) };
        const c = box.find((x) => sameMember(m, x));
        if (!c) return { ...base, health: 'unknown', why: `the daemon does not run ${m.label} (push this workspace to it)` };
        return {
          ...base, admin: c.admin, health: HEALTH[c.state] ?? 'unknown', sessions: c.sessions,
          ...(c.weight === undefined ? {} : { weight: c.weight }),
          check: `${c.state}: ${c.reason}`,
        };
      });
    },
    async set(members, admin): Promise<SetOutcome> {
      const [a] = await ask([{ op: 'set', admin, members: members.map((m) => ({ group: m.group, server: m.server, ...(m.port === undefined ? {} : { port: m.port }) })) }]);
      return a!.ok ? { ok: true } : { ok: false, refused: a!.error };
    },
    async generation() {
      const a = await one({ op: 'state' });
      return `${a.pid}.${a.generation}`;
    },
  };
}

export const lbdeskRuntime: RuntimeDriver = { open: openLbdesk };
