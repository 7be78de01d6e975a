// An SSH test box that behaves like an A10 vThunder (ACOS 4.x) CLI: `vThunder>` / `vThunder#` /
// `vThunder(config)#` / `vThunder(config-real server)#` / `vThunder(config-real server-node port)#`
// / `vThunder(config-slb svc group)#` … prompts, `--MORE--` paging until `terminal length 0`,
// `% Invalid input detected at '^' marker.` for what it does not know, and a running config it
// changes by the commands it is sent. It refuses what ACOS refuses (removing a server a service
// group still has, a member or service-group that does not exist, a server re-created on another
// address, a health monitor that does not exist or, on removal, that a group or server still names), keeps the saved config apart from the running one (`write memory`), and can be cut
// off mid-apply. The refusal texts are approximate (ACOS words them per release).
import type { ServerChannel } from 'ssh2';
import { A10Text } from '../../../main/services/drivers/a10/edit';
import { memberHead, parseA10, splitA10Words } from '../../../main/services/drivers/a10/parse';
import { startSshBox, type SshBox } from './ssh-box';

export interface A10BoxOptions {
  host: string;
  /** The running config at start (as `show running-config` prints it, without the header). */
  config: string;
  /** Log in at `vThunder>` (then `enable`, which asks no password here), not at `vThunder#`. */
  userMode?: boolean;
  pageLines?: number;
  /** A command the box answers with an error instead of applying it. */
  failOn?: RegExp;
  /** A command after which the box drops the connection (once) without answering; applied first. */
  cutAfter?: RegExp;
}

export interface A10Box extends SshBox {
  received: string[];
  running(): string;
  saved(): string;
  show(): string;
  /**
   * The box's runtime counters per `server:port` (`s1:80`): current connections, which the test
   * sets and lowers as clients would end theirs, and the port's health (Up, Down; default Up).
   */
  sessions: Map<string, number>;
  health: Map<string, string>;
  /** What `show slb server` prints now. */
  showServers(): string;
}

/** What each mode takes (beyond entering and leaving sub-modes). */
const ACCEPTS: Record<string, RegExp> = {
  'slb server': /^(no )?(port \d+ (tcp|udp)|weight( \d+)?|disable|enable|health-check( \S+)?|health-check-disable|conn-limit \d+|stats-data-(enable|disable)|template .+)$/,
  'slb server/port': /^(no )?(disable|enable|weight \d+|health-check( \S+)?|health-check-disable|conn-limit \d+|stats-data-(enable|disable)|template .+)$/,
  'slb service-group': /^(no )?(member \S+( \d+)?( disable| enable| priority \d+)*|(lb-)?method( \S+)*|health-check( \S+)?|health-check-disable|stats-data-(enable|disable))$/,
  'slb service-group/member': /^(no )?(disable|enable|priority \d+)$/,
  'slb virtual-server': /^(no )?(port \d+ \S+( range \d+)?|disable|enable|vrid \d+|stats-data-(enable|disable))$/,
  'slb virtual-server/port': /^(no )?(service-group \S+|source-nat (pool \S+|auto)|disable|enable|name \S+|template .+|access-list .+|conn-limit \d+|def-selection-if-pref-failed|bucket-count \d+)$/,
  'health monitor': /^(no )?(method .+|interval \d+( timeout \d+)?|retry \d+|up-retry \d+|override-port \d+)$/,
};
const PROMPTS: Record<string, string> = {
  'slb server': 'real server', 'slb server/port': 'real server-node port', 'slb service-group': 'slb svc group',
  'slb service-group/member': 'slb svc group-member', 'slb virtual-server': 'slb vserver', 'slb virtual-server/port': 'slb vserver-vport', 'health monitor': 'health:monitor',
};
const KINDS = ['slb server', 'slb service-group', 'slb virtual-server', 'health monitor'];

export async function startA10Box(opts: A10BoxOptions): Promise<A10Box> {
  let config = opts.config;
  let saved = opts.config;
  const received: string[] = [];
  const pageLines = opts.pageLines ?? 20;
  let cut = opts.cutAfter;
  let drop: () => void = () => undefined;

  const sessions = new Map<string, number>();
  const health = new Map<string, string>();
  /** `show slb server` as ACOS 4.1 prints it (drivers/a10/show.ts has a real sample). */
  const showServers = () => {
    const cfg = parseA10(config);
    const row = (what: string, cur: number, state: string) => `${what.padEnd(25)} ${String(cur).padEnd(10)} ${String(cur).padEnd(10)} 0          0          0          ${state}`;
    const out = [`Total Number of Servers configured: ${cfg.servers.length}`, `Total Number of Services configured: ${cfg.servers.reduce((n, x) => n + x.ports.length, 0)}`,
      '                   Current = Current Connections, Total = Total Connections', '                   Fwd-pkt = Forward packets, Rev-pkt = Reverse packets',
      'Service                   Current    Total      Fwd-pkt    Rev-pkt    Peak-conn  State', '-'.repeat(87)];
    for (const srv of cfg.servers) {
      let total = 0;
      let up = false;
      for (const p of srv.ports) {
        const cur = sessions.get(`${srv.name}:${p.port}`) ?? 0;
        total += cur;
        // A disabled server's ports read Down, a disabled port Disabled (as the workshop's box shows).
        const state = srv.disabled ? 'Down' : p.disabled ? 'Disabled' : health.get(`${srv.name}:${p.port}`) ?? 'Up';
        // A disabled port is no health verdict: the server reads Down only when its enabled ports do.
        up ||= state !== 'Down';
        out.push(row(`${srv.name}:${p.port}/${p.proto}`, cur, state));
      }
      out.push(row(`${srv.name}: Total`, total, srv.disabled ? 'Disabled' : up ? 'Up' : 'Down'), '');
    }
    return out;
  };

  const show = () => {
    const body = config.endsWith('\n') ? config : `${config}\n`;
    return `!Current configuration: ${Buffer.byteLength(body)} bytes\n!Configuration last updated at 06:12:09 UTC Wed Dec 2 2026\n!Configuration last saved at 06:12:11 UTC Wed Dec 2 2026\n!version 4.1.4-GR1-P5, build 81 (Aug-31-2021,11:22)\n!\n${body}`;
  };

  /** Applies one config-mode command in the modes `path`; an error, or the new path. */
  function configure(cmd: string, path: string[][]): { error?: string; path: string[][] } {
    const t = new A10Text(config);
    const w = splitA10Words(cmd);
    const invalid = { error: 'invalid', path };
    if (path[0]) { t.enter(path[0]); for (const p of path.slice(1)) t.sub(p.join(' ')); }
    const cfg = parseA10(config);
    const kind = KINDS.find((k) => `${w[0]} ${w[1]}` === k);
    const noKind = w[0] === 'no' ? KINDS.find((k) => `${w[1]} ${w[2]}` === k) : undefined;
    if (kind && w[2]) {
      const at = t.find(kind, w[2]);
      const addr = (i: number) => splitA10Words(t.lines[i]!)[3];
      if ((kind === 'slb server' || kind === 'slb virtual-server') && at < 0 && !w[3]) return { error: `Error: ${w[1]} ${w[2]} does not exist; give its address to create it`, path };
      if (kind === 'slb server' && at >= 0 && w[3] && addr(at) !== w[3]) return { error: `Error: server ${w[2]} already exists with IP ${addr(at)}`, path };
      t.enter(at >= 0 ? splitA10Words(t.lines[at]!) : w);
      config = t.text;
      return { path: [at >= 0 ? splitA10Words(t.lines[at]!) : w] };
    }
    if (noKind && w[3] && path.length === 0) {
      if (t.find(noKind, w[3]) < 0) return { error: `Error: ${w[2]} ${w[3]} does not exist`, path };
      const users = noKind === 'slb server' ? cfg.groups.filter((g) => g.members.some((m) => m.server === w[3])).map((g) => g.name)
        : noKind === 'slb service-group' ? cfg.virtuals.filter((v) => v.ports.some((p) => p.serviceGroup === w[3])).map((v) => v.name)
          : noKind === 'health monitor' ? [...cfg.groups.filter((g) => g.healthCheck === w[3]).map((g) => g.name), ...cfg.servers.filter((x) => x.healthCheck === w[3]).map((x) => x.name)] : [];
      const by = noKind === 'slb server' ? 'service-group' : noKind === 'slb service-group' ? 'virtual-server' : 'service-group or server';
      if (users.length) return { error: `Error: ${w[2]} ${w[3]} is referenced by ${by} ${users.join(', ')}`, path };
      t.remove(noKind, w[3]);
      config = t.text;
      return { path: [] };
    }
    if (!path[0]) return invalid;
    const top = KINDS.find((k) => `${path[0]![0]} ${path[0]![1]}` === k)!;
    const mode = path.length > 1 ? `${top}/${path[1]![0] === 'member' ? 'member' : 'port'}` : top;
    if (!ACCEPTS[mode]?.test(cmd)) return invalid;
    const v = w[0] === 'no' ? w.slice(1) : w;
    const m = memberHead(v);
    if (mode === 'slb service-group' && m && w[0] !== 'no' && !cfg.servers.some((s) => s.name === m.server)) return { error: `Error: server ${m.server} does not exist`, path };
    if ((mode === 'slb service-group' || mode === 'slb server') && v[0] === 'health-check' && v[1] && w[0] !== 'no' && !cfg.monitors.some((x) => x.name === v[1])) return { error: `Error: health monitor ${v[1]} does not exist`, path };
    if (mode === 'slb virtual-server/port' && v[0] === 'service-group' && w[0] !== 'no' && !cfg.groups.some((g) => g.name === v[1])) return { error: `Error: service-group ${v[1]} does not exist`, path };
    const depth = t.depth;
    if (!t.sub(cmd)) return invalid;
    config = t.text;
    // `enable` is the default: the running config drops the `disable` it replaces, and prints nothing.
    if (cmd === 'enable' && top === 'slb server') config = dropEnable(config, path[0]!);
    return { path: t.depth > depth ? [...path, v] : path };
  }

  function shell(stream: ServerChannel): void {
    let level: 'user' | 'exec' | 'config' = opts.userMode ? 'user' : 'exec';
    let path: string[][] = [];
    let paging = true;
    let input = '';
    let lastCr = false;
    let more: string[] | undefined;
    let dead = false;
    const out = (s: string) => { if (!stream.destroyed && !dead) stream.write(s.replace(/\r?\n/g, '\r\n')); };
    const promptText = () => {
      if (level === 'user') return 'vThunder>';
      if (level === 'exec') return 'vThunder#';
      if (!path.length) return 'vThunder(config)#';
      const top = KINDS.find((k) => `${path[0]![0]} ${path[0]![1]}` === k)!;
      const mode = path.length > 1 ? `${top}/${path[1]![0] === 'member' ? 'member' : 'port'}` : top;
      return `vThunder(config-${PROMPTS[mode]}${mode.endsWith('member') ? `:${path[1]![2]}` : ''})#`;
    };
    const prompt = () => out(promptText());
    const invalid = (cmd: string) => out(`${' '.repeat(promptText().length + Math.max(0, cmd.indexOf(' ')))}^\n% Invalid input detected at '^' marker.\n\n`);
    const page = (lines: string[]) => {
      if (!paging || lines.length <= pageLines) { out(`${lines.join('\n')}\n`); prompt(); return; }
      out(`${lines.slice(0, pageLines).join('\n')}\n--MORE--`);
      more = lines.slice(pageLines);
    };
    const save = () => { saved = config; out('Building configuration...\nWrite configuration to primary default startup-config\n[OK]\n'); };
    const execute = (line: string) => {
      const cmd = line.trim();
      if (cmd === '') { prompt(); return; }
      received.push(cmd);
      if (cmd === 'show running-config' || cmd === 'show run') { page(show().replace(/\n$/, '').split('\n')); return; }
      if (cmd === 'show slb server' && level !== 'user') { page(showServers()); return; }
      if (opts.failOn?.test(cmd)) { out(`Error: ${cmd}: the box refuses this (test)\n`); prompt(); return; }
      if (level === 'user') {
        if (cmd === 'enable') level = 'exec'; else if (cmd === 'exit') { stream.exit(0); stream.end(); return; } else invalid(cmd);
        prompt();
        return;
      }
      if (cmd === 'terminal length 0') { paging = false; prompt(); return; }
      if (level === 'exec') {
        if (cmd === 'configure terminal' || cmd === 'configure' || cmd === 'conf t') { level = 'config'; path = []; } else if (cmd === 'write memory') save();
        else if (cmd === 'exit') { stream.exit(0); stream.end(); return; } else if (cmd !== 'enable') invalid(cmd);
        prompt();
        return;
      }
      if (cmd === 'end') { level = 'exec'; path = []; prompt(); return; }
      if (cmd === 'exit') { if (!path.length) level = 'exec'; else path = path.slice(0, -1); prompt(); return; }
      if (cmd === 'write memory') { save(); prompt(); return; }
      const r = configure(cmd, path);
      path = r.path;
      if (r.error === 'invalid') invalid(cmd);
      else if (r.error) out(`${r.error}\n`);
      if (!r.error && cut?.test(cmd)) { cut = undefined; dead = true; drop(); return; }
      prompt();
    };
    stream.on('data', (d: Buffer) => {
      for (const ch of d.toString('utf8')) {
        if (more) {
          const rest = more;
          more = undefined;
          out('\r        \r');
          if (ch === 'q' || ch === '\x03') { prompt(); continue; }
          page(rest);
          continue;
        }
        if (ch === '\x03') { input = ''; out('^C\n'); prompt(); continue; }
        if (ch === '\n' && lastCr) { lastCr = false; continue; }
        lastCr = ch === '\r';
        if (ch === '\r' || ch === '\n') { out('\n'); const l = input; input = ''; execute(l); continue; }
        input += ch;
        out(ch);
      }
    });
    out('ACOS system is ready now.\n\n[type ? for help]\n\n');
    prompt();
  }

  const box = await startSshBox(opts.host, { shell });
  drop = box.dropAll;
  return { ...box, received, running: () => config, saved: () => saved, show, sessions, health, showServers: () => showServers().join('\n') };
}

/** The config without the `enable` lines in the block headed by `head` (an slb server). */
function dropEnable(config: string, head: string[]): string {
  const t = new A10Text(config);
  const at = t.find('slb server', head[2]!);
  if (at < 0) return config;
  const end = t.end(at);
  return t.lines.filter((l, i) => !(i > at && i < end && l.trim() === 'enable')).join('\n');
}
