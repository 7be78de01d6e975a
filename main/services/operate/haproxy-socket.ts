// HAProxy's runtime API over SSH: the admin stats socket the box's config declares, reached with
// whatever the box has (socat, an nc with -U, python3; probed once per connection), one exec for
// any number of commands, each answer kept apart.
import type { Remote } from '../sync/remote';
import { shq, tail } from '../sync/quote';

export interface DeclaredSocket {
  path: string;
  /** `level` as written (absent: HAProxy's default). */
  level?: string;
  /** 1-based line of the declaration. */
  line: number;
}

/**
 * The UNIX stats sockets `global` declares, `level admin` first. TCP ones (`ipv4@`, host:port)
 * and abstract ones are named in `other` (lbdesk reaches files only).
 */
export function declaredSockets(config: string): { sockets: DeclaredSocket[]; other: string[] } {
  const sockets: DeclaredSocket[] = [];
  const other: string[] = [];
  let inGlobal = false;
  config.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\s#.*$/, '').replace(/\r$/, '');
    if (/^\S/.test(line)) inGlobal = /^global\b/.test(line);
    const m = inGlobal ? /^\s+stats\s+socket\s+(\S+)(.*)$/.exec(line) : null;
    if (!m) return;
    const where = m[1]!.replace(/^unix@/, '');
    const level = /\slevel\s+(\S+)/.exec(m[2]!)?.[1];
    if (where.startsWith('/')) sockets.push({ path: where, ...(level ? { level } : {}), line: i + 1 });
    else other.push(where);
  });
  sockets.sort((a, b) => Number(b.level === 'admin') - Number(a.level === 'admin'));
  return { sockets, other };
}

/**
 * The box's tool, then the socket's answers and `@lbdesk END rc`. All commands go on one
 * connection in HAProxy's interactive mode (`prompt`): each answer ends with its `> ` prompt.
 * Paths and commands are arguments, never spliced.
 */
const ASK = `s=$1; tool=$2; shift 2
if [ ! -S "$s" ]; then
  if [ -e "$s" ]; then echo "@lbdesk NOTSOCK"; else echo "@lbdesk NOSOCK"; fi
  exit 0
fi
if [ "$tool" = probe ]; then
  if command -v socat >/dev/null 2>&1; then tool=socat
  elif command -v nc >/dev/null 2>&1 && nc -h 2>&1 | grep -q -e '-U'; then tool=nc
  elif command -v python3 >/dev/null 2>&1; then tool=python3
  else echo "@lbdesk NOTOOL"; exit 0; fi
  echo "@lbdesk TOOL $tool"
fi
{ echo prompt; for c do printf '%s\\n' "$c"; done; echo quit; } | case $tool in
  socat) socat -t 30 - "UNIX-CONNECT:$s" ;;
  nc) nc -U "$s" ;;
  *) python3 -I -S -c "$PY" "$s" ;;
esac
printf '\\n@lbdesk END %s\\n' "$?"`;

/** python3 (-I -S: no site, no environment: it starts in half the time): stdin to the socket and back, until HAProxy closes it (after `quit`). */
const PY = `import socket, sys
try:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(30)
    s.connect(sys.argv[1])
    s.sendall(sys.stdin.buffer.read())
    while True:
        d = s.recv(65536)
        if not d:
            break
        sys.stdout.buffer.write(d)
except OSError as e:
    sys.stderr.write("%s: %s\\n" % (sys.argv[1], e.strerror or e))
    sys.exit(1)`;

/**
 * The box's commit-confirmed timer runs this around its reload (TIMER's keeper) with one data
 * argument: the socket's path, the tool (or `probe`), then one runtime command a line. `pid`
 * prints the answering worker's pid; `set DATA OLDPID` waits (up to 10 s) for a worker other
 * than OLDPID, sends the commands, and exits 1 unless every one was answered with silence.
 */
export const KEEP_AFTER_RELOAD = `PY=${shq(PY)}; export PY
ASK=${shq(ASK)}
s=$(printf '%s\\n' "$2" | sed -n 1p)
tool=$(printf '%s\\n' "$2" | sed -n 2p)
pid() { sh -c "$ASK" lbdesk-ask "$s" "$tool" "show info" | sed -n 's/^\\(> \\)*Pid: \\([0-9]*\\).*/\\2/p' | head -n 1; }
[ "$1" = pid ] && { pid; exit 0; }
i=0
while [ "$i" -lt 20 ]; do
  now=$(pid)
  [ -n "$now" ] && [ "$now" != "$3" ] && break
  sleep 0.5 2>/dev/null || sleep 1
  i=$((i+1))
done
cmds=$(printf '%s\\n' "$2" | sed 1,2d)
set --
while IFS= read -r c; do [ -n "$c" ] && set -- "$@" "$c"; done <<LBDESK_END
$cmds
LBDESK_END
out=$(sh -c "$ASK" lbdesk-ask "$s" "$tool" "$@")
printf '%s\\n' "$out"
case $out in *"@lbdesk END 0"*) ;; *) exit 1 ;; esac
# Success is silence: any word from the box (past its prompts) is a refusal.
printf '%s\\n' "$out" | grep -v '^@lbdesk' | sed 's/^\\(> \\)*//' | grep -q . && exit 1
exit 0`;

export class SocketError extends Error {}

export interface Answer { text: string }

/** One socket on one box: the tool found on the first call is kept. */
export class StatsSocket {
  private tool?: string;

  constructor(private readonly remote: Remote, readonly path: string) {}

  get via(): string | undefined { return this.tool; }

  async ask(commands: string[]): Promise<Answer[]> {
    const script = `PY=${shq(PY)}\n${ASK}`;
    const r = await this.remote.run(script, [this.path, this.tool ?? 'probe', ...commands], 60_000);
    let out = r.stdout;
    const first = /^@lbdesk (NOSOCK|NOTSOCK|NOTOOL|TOOL (\S+))\n/.exec(out);
    if (first?.[1] === 'NOSOCK') throw new SocketError(`no socket at ${this.path} on the box (is HAProxy running with this config?)`);
    if (first?.[1] === 'NOTSOCK') throw new SocketError(`${this.path} on the box is not a socket`);
    if (first?.[1] === 'NOTOOL') throw new SocketError(`the box has nothing to reach the stats socket ${this.path} with (no socat, no nc with -U, no python3)`);
    if (first?.[2]) {
      this.tool = first[2];
      out = out.slice(first[0].length);
    }
    const end = /\n?@lbdesk END (\d+)\n?$/.exec(out);
    // The answer to `prompt` is empty; then one per command, each followed by the next prompt.
    const parts = (end ? out.slice(0, end.index) : out).split('\n> ');
    if (!end || end[1] !== '0' || parts.length < commands.length + 2) {
      // socat's own line (`2026/12/02 10:00:00 socat[42] E connect(…): Permission denied`) as python's: `PATH: why`.
      const stderr = r.stderr.replace(/^.*socat\[\d+\] E connect\(.*\): (.*)$/gm, `${this.path}: $1`);
      const said = tail(stderr) || (end?.[1] === '0' ? 'the socket closed before every command was answered' : `exit ${end?.[1] ?? r.code ?? r.signal}`);
      const hint = /refused/i.test(said) ? ' (nothing listens on it: is HAProxy running with this config?)' : '';
      throw new SocketError(`cannot reach the stats socket ${this.path}${this.tool ? ` with ${this.tool}` : ''}: ${said}${hint}`);
    }
    return commands.map((_, i) => ({ text: parts[i + 1]! }));
  }
}
