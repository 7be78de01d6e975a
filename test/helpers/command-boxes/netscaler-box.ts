// An SSH test box that behaves like a NetScaler (Citrix ADC) CLI: the `> ` prompt, ` Done` after
// each command it took, `ERROR: …` (and no Done) for one it refuses, `--More--` paging until
// `set cli mode -page OFF`, and a running config (`show ns runningConfig`, in ns.conf form) it
// changes by the commands it is sent. It refuses what a NetScaler refuses (adding a server or a
// member that exists, removing a server still bound to a service group, binding a server name
// that does not exist — an address instead adds the server, named by it — setting a member that
// is not bound; adding a monitor that exists, binding one that does not, removing one still
// bound — `ERROR: Monitor is bound`, approximate wording), keeps the saved config apart from the
// running one (`save ns config`), and can be cut off mid-apply. At run time it prints
// `show serviceGroup G` (the layout drivers/netscaler/show.ts cites) and `stat serviceGroupMember`
// from its state and the counters a test sets, and takes `disable|enable serviceGroup G S P`
// (a disabled member's bind then reads `-state DISABLED`, the option `bind serviceGroup` takes for it).
import type { ServerChannel } from 'ssh2';
import { isIpAddress } from '../../../shared/model/address';
import { NsText } from '../../../main/services/drivers/netscaler/edit';
import { nsOptions, parseNs, splitNsWords } from '../../../main/services/drivers/netscaler/parse';
import { startSshBox, type SshBox } from './ssh-box';

export interface NsBoxOptions {
  host: string;
  /** The running config at start (ns.conf text, its `#NS…` header included). */
  config: string;
  pageLines?: number;
  /** A command the box answers with an error instead of applying it. */
  failOn?: RegExp;
  /** A command after which the box drops the connection (once) without answering; applied first. */
  cutAfter?: RegExp;
}

export interface NsBox extends SshBox {
  /** Every command received in shell sessions, in order. */
  received: string[];
  running(): string;
  /** The config `save ns config` saved last. */
  saved(): string;
  /**
   * Per `server:port` (`web1:80`): current client connections, which the test sets and lowers as
   * clients end theirs, and the member's health (UP, DOWN; default UP).
   */
  sessions: Map<string, number>;
  health: Map<string, string>;
}

/** Monitors every NetScaler has (no add line); names are lower case. */
const BUILT_IN = new Set(['ping', 'tcp', 'http', 'tcp-ecv', 'http-ecv', 'udp-ecv', 'dns', 'ftp', 'tcps', 'https', 'tcps-ecv', 'https-ecv', 'ping-default', 'tcp-default', 'arp', 'nd6']);
const key = (w: string[], n: number) => w.slice(0, n).map((x) => x.toLowerCase()).join(' ');

export async function startNsBox(opts: NsBoxOptions): Promise<NsBox> {
  let config = opts.config;
  let saved = opts.config;
  const received: string[] = [];
  const pageLines = opts.pageLines ?? 24;
  let cut = opts.cutAfter;
  let drop: () => void = () => undefined;

  const sessions = new Map<string, number>();
  const health = new Map<string, string>();
  /** Members disabled with `-graceFul YES`: TROFS while they have connections, then out of service. */
  const graceful = new Set<string>();

  /** `show serviceGroup G`, `stat serviceGroupMember G S P`: their lines, an error line, or undefined for another command. */
  function runtime(cmd: string): string[] | string | undefined {
    const w = splitNsWords(cmd);
    const { positional: p, opts } = nsOptions(w);
    const cfg = parseNs(config);
    const group = cfg.groups.find((g) => g.name === p[2]);
    const none = `ERROR: No such resource [serviceGroupName, ${p[2]}]`;
    if (key(w, 2) === 'show servicegroup' && p.length === 3) {
      if (!group) return none;
      const monitor = group.monitors[0]?.name ?? 'tcp-default';
      const lines = [`\t${group.name} - ${group.protocol}`, '\tState: ENABLED\tEffective State: UP\tMonitor Threshold : 0', '\tMax Conn: 0\tMax Req: 0\tMax Bandwidth: 0 kbits',
        '\tUse Source IP: NO\t', '\tClient Keepalive(CKA): NO', '\tTCP Buffering(TCPB): NO', '\tHTTP Compression(CMP): NO', '\tIdle timeout: Client: 180 sec\tServer: 360 sec',
        '\tDown state flush: ENABLED', '\tTraffic Domain: 0', '', ''];
      group.members.forEach((m, i) => {
        const server = cfg.servers.find((s) => s.name === m.server)!;
        const k = `${m.server}:${m.port}`;
        const off = server.disabled || nsOptions(m.line.words).opts.get('state')?.[0]?.toUpperCase() === 'DISABLED';
        const up = (health.get(k) ?? 'UP') === 'UP';
        const state = !off ? (up ? 'UP' : 'DOWN') : graceful.has(`${group.name}/${k}`) && (sessions.get(k) ?? 0) > 0 ? 'TROFS' : 'OUT OF SERVICE';
        lines.push(`\t${i + 1})    ${server.address}:${m.port}\tState: ${state}\tServer Name: ${m.server}\tServer ID: None\tWeight: ${m.weight}`,
          '\t\tLast state change was at Thu Dec  3 06:12:09 2026 ', '\t\tTime since last state change: 0 days, 00:01:00.240', '',
          `\t\tMonitor Name: ${monitor} \tState: ${up ? 'UP' : 'DOWN'}\tPassive: 0`, '\t\tProbes: 23\tFailed [Total: 0 Current: 0]',
          `\t\tLast response: ${up ? 'Success - TCP syn+ack received.' : 'Failure - TCP connection refused.'}`, '\t\tResponse Time: 0 millisec');
      });
      return lines;
    }
    if (key(w, 2) === 'stat servicegroupmember' && p.length === 5) {
      if (!group?.members.some((m) => m.server === p[3] && String(m.port) === p[4])) return `ERROR: No such resource [${p[3]}:${p[4]}]`;
      const n = sessions.get(`${p[3]}:${p[4]}`) ?? 0;
      const row = (name: string, rate: string, total: string | number) => `${name.padEnd(40)}${rate.padStart(10)}${String(total).padStart(21)}`;
      return ['', 'Service Group Member Statistics', row('', 'Rate (/s)', 'Total'), row('Requests', '0', 0), row('Responses', '0', 0),
        row('Current client connections', '--', n), row('Current server connections', '--', n), ''];
    }
    if (/^(disable|enable) servicegroup$/.test(key(w, 2)) && p.length === 5) {
      if (!group) return none;
      const t = new NsText(config);
      const i = t.member(p[2]!, p[3]!, p[4]!);
      if (i < 0) return `ERROR: No such resource [${p[3]}:${p[4]}]`;
      const k = `${p[2]}/${p[3]}:${p[4]}`;
      const line = t.lines[i]!.replace(/\s-state\s+\S+/i, '');
      t.lines[i] = key(w, 2) === 'disable servicegroup' ? `${line} -state DISABLED` : line;
      config = t.text;
      if (key(w, 2) === 'disable servicegroup' && opts.get('graceful')?.[0]?.toUpperCase() === 'YES') graceful.add(k); else graceful.delete(k);
      return [];
    }
    return undefined;
  }

  /** Applies one command to the running config; an error line, or undefined when taken. */
  function configure(cmd: string): string | undefined {
    const t = new NsText(config);
    const w = splitNsWords(cmd);
    const { positional: p } = nsOptions(w);
    const k2 = key(w, 2);
    const exists = 'ERROR: Resource already exists';
    const none = (what: string) => `ERROR: No such resource [${what}]`;
    if (k2 === 'add server' && t.server(p[2] ?? '') >= 0) return exists;
    if (k2 === 'add servicegroup' && t.group(p[2] ?? '') >= 0) return exists;
    if (key(w, 3) === 'add lb vserver' && t.vserver(p[3] ?? '') >= 0) return exists;
    if (/^(rm|disable|enable) server$/.test(k2) && t.server(p[2] ?? '') < 0) return none(`serverName, ${p[2]}`);
    if (k2 === 'rm server' && t.groupsOf(p[2]!).length) return `ERROR: Cannot remove server ${p[2]}: it is bound to service group ${t.groupsOf(p[2]!).join(', ')}`;
    if (/^(bind|unbind|set) servicegroup$/.test(k2) && t.group(p[2] ?? '') < 0) return none(`serviceGroupName, ${p[2]}`);
    if (p.length === 5 && /^(bind|unbind|set) servicegroup$/.test(k2)) {
      const bound = t.member(p[2]!, p[3]!, p[4]!) >= 0;
      // Bound by an address with no server of that name: the box adds the server, named by it.
      if (k2 === 'bind servicegroup' && t.server(p[3]!) < 0 && isIpAddress(p[3]!) && !bound) t.apply(`add server ${p[3]} ${p[3]}`);
      else if (k2 === 'bind servicegroup' && t.server(p[3]!) < 0) return none(`serverName, ${p[3]}`);
      if (k2 === 'bind servicegroup' && bound) return exists;
      if (k2 !== 'bind servicegroup' && !bound) return none(`${p[3]}:${p[4]}`);
    }
    const k3 = key(w, 3);
    const { opts } = nsOptions(w);
    const mon = opts.get('monitorname')?.[0];
    if (k3 === 'add lb monitor' && (t.monitor(p[3] ?? '') >= 0 || BUILT_IN.has((p[3] ?? '').toLowerCase()))) return exists;
    if (/^(rm|set|unset) lb monitor$/.test(k3) && t.monitor(p[3] ?? '') < 0 && !BUILT_IN.has((p[3] ?? '').toLowerCase())) return none(`monitorName, ${p[3]}`);
    if (k3 === 'rm lb monitor' && t.monitorBinds(p[3]!).length) return 'ERROR: Monitor is bound';
    if (k2 === 'bind servicegroup' && mon !== undefined) {
      if (t.monitor(mon) < 0 && !BUILT_IN.has(mon.toLowerCase())) return none(`monitorName, ${mon}`);
      if (t.where((x) => key(x, 2) === 'bind servicegroup' && x[2] === p[2] && nsOptions(x).opts.get('monitorname')?.[0] === mon).length) return exists;
    }
    if (k2 === 'unbind servicegroup' && mon !== undefined && !t.where((x) => key(x, 2) === 'bind servicegroup' && x[2] === p[2] && nsOptions(x).opts.get('monitorname')?.[0] === mon).length) return none(`monitorName, ${mon}`);
    if (!t.apply(cmd)) return `ERROR: No such command`;
    config = t.text;
    return undefined;
  }

  function shell(stream: ServerChannel): void {
    let paging = true;
    let input = '';
    let lastCr = false;
    let more: string[] | undefined;
    let dead = false;
    const out = (s: string) => { if (!stream.destroyed && !dead) stream.write(s.replace(/\r?\n/g, '\r\n')); };
    const prompt = () => out('> ');
    const page = (lines: string[]) => {
      if (!paging || lines.length <= pageLines) { out(`${lines.join('\n')}\n Done\n`); prompt(); return; }
      out(`${lines.slice(0, pageLines).join('\n')}\n--More--`);
      more = lines.slice(pageLines);
    };
    const execute = (line: string) => {
      const cmd = line.trim();
      if (cmd === '') { prompt(); return; }
      received.push(cmd);
      if (/^show ns runningconfig$/i.test(cmd)) { page(config.replace(/\n$/, '').split('\n')); return; }
      if (opts.failOn?.test(cmd)) { out(`ERROR: ${cmd}: the box refuses this (test)\n`); prompt(); return; }
      if (/^set cli mode -page off$/i.test(cmd)) { paging = false; out(' Done\n'); prompt(); return; }
      const r = runtime(cmd);
      if (typeof r === 'string') { out(`${r}\n`); prompt(); return; }
      if (r?.length) { page(r); return; }
      if (r) { out(' Done\n'); prompt(); return; }
      if (/^save ns config$/i.test(cmd)) { saved = config; out(' Done\n'); prompt(); return; }
      if (cmd === 'exit') { out(' Done\n'); stream.exit(0); stream.end(); return; }
      const error = configure(cmd);
      if (!error && cut?.test(cmd)) { cut = undefined; dead = true; drop(); return; }
      out(error ? `${error}\n` : ' Done\n');
      prompt();
    };
    stream.on('data', (d: Buffer) => {
      for (const ch of d.toString('utf8')) {
        if (more) {
          const rest = more;
          more = undefined;
          out('\r        \r');
          if (ch === 'q' || ch === '\x03') { out(' Done\n'); prompt(); continue; }
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
    out(' Done\n');
    prompt();
  }

  const box = await startSshBox(opts.host, { shell });
  drop = box.dropAll;
  return { ...box, received, running: () => config, saved: () => saved, sessions, health };
}
