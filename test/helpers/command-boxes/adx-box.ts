// An SSH test box that behaves like a ServerIron ADX CLI: `ADX>` / `ADX#` / `ADX(config)#` /
// `ADX(config-rs-web1)#` prompts, `--More--` paging until `skip-page-display`, `Invalid input ->`
// for what it does not know, and a running config it changes by the commands it is sent. It
// refuses what an ADX refuses (removing a real server that is still bound, binding a real server
// that does not exist, re-creating a real server on another address), keeps the saved config
// apart from the running one (`write memory`), and can be cut off mid-apply.
import type { ServerChannel } from 'ssh2';
import { AdxText, type AdxKind } from '../../../main/services/drivers/adx/edit';
import { parseAdx, splitAdxWords } from '../../../main/services/drivers/adx/parse';
import { startSshBox, type SshBox } from './ssh-box';

export interface AdxBoxOptions {
  host: string;
  /** The running config at start (as `show running-config` prints it, without the header). */
  config: string;
  /** Log in at `ADX>` (then `enable`), not at `ADX#`. */
  userMode?: boolean;
  pageLines?: number;
  /** A command the box answers with an error instead of applying it. */
  failOn?: RegExp;
  /** A command after which the box drops the connection (once) without answering; applied first. */
  cutAfter?: RegExp;
}

export interface AdxBox extends SshBox {
  /** Every command received in shell sessions, in order. */
  received: string[];
  /** The running config now (no header). */
  running(): string;
  /** The config `write memory` saved last. */
  saved(): string;
  /** What `show running-config` prints. */
  show(): string;
  /**
   * The box's runtime counters, per `real:port` (`rs2:http`): current connections, which the test
   * sets and lowers as clients would end theirs, and a port health code (ACT, FAL…; default ACT).
   */
  sessions: Map<string, number>;
  health: Map<string, string>;
  /** What `show server real` prints now. */
  showReal(): string;
}

const REAL_SUB = /^(no )?(port |weight|disable$|enable$)/;
const VIRTUAL_SUB = /^(no )?(port |bind |predictor )/;

export async function startAdxBox(opts: AdxBoxOptions): Promise<AdxBox> {
  let config = opts.config;
  let saved = opts.config;
  const received: string[] = [];
  const pageLines = opts.pageLines ?? 20;
  let cut = opts.cutAfter;
  let drop: () => void = () => undefined;

  const sessions = new Map<string, number>();
  const health = new Map<string, string>();
  /** `show server real` as a ServerIron prints it: a head line per real server, a row per port. */
  const showReal = () => {
    const out = ['Real Servers Info', 'State(St) - ACT:active, ENB:enabled, FAL:failed, TST:test, DIS:disabled,',
      '            UNK:unknown, UNB:unbind, AWU:await-unbind, AWD: await-shutdown', ''];
    for (const r of parseAdx(config).reals) {
      const st = r.disabled ? 'Disabled' : 'Active';
      const wt = r.weight?.words[0] ?? '1';
      out.push(`Name: ${r.name.padEnd(30)} IP:${r.address.padEnd(15)}: 1 : St: ${st.padEnd(9)} Wt: ${wt} : 0  Max-conn: 1000000`);
      out.push('       Src-nat (cfg:op) = (off:off)            Dest-nat (cfg:op) = (off:off)');
      out.push('       Port    St  Ms CurConn TotConn Rx-pkts  Tx-pkts  Rx-octet  Tx-octet  Reas');
      out.push('       ----    --  -- ------- ------- -------  -------  --------  --------  ----');
      let total = 0;
      for (const [name, port] of r.ports) {
        const code = r.disabled || port.disabled ? 'DIS' : health.get(`${r.name}:${name}`) ?? 'ACT';
        const cur = sessions.get(`${r.name}:${name}`) ?? 0;
        total += cur;
        out.push(`       ${name.padEnd(7)} ${code} 0  ${String(cur).padEnd(7)} ${String(cur).padEnd(7)} 0        0        0         0         0`);
      }
      out.push(`       Server  Total  ${String(total).padEnd(7)} ${String(total).padEnd(7)} 0        0        0         0         0`, '');
    }
    return out;
  };

  const show = () => {
    const body = config.endsWith('\n') ? config : `${config}\n`;
    return `!Building configuration...\n!Current configuration : ${Buffer.byteLength(body)} bytes\n!\n${body}`;
  };

  /** Real servers bound on some virtual server: name -> the virtual servers. */
  function boundTo(t: AdxText, real: string): string[] {
    const out: string[] = [];
    t.lines.forEach((l, i) => {
      const w = splitAdxWords(l);
      if (/^server virtual /.test(l) && t.binds(i).some((b) => b.real === real)) out.push(w[2]!);
    });
    return out;
  }

  /** Applies one config-mode command; an error message, or the mode it leaves the session in. */
  function configure(cmd: string, mode: { kind: 'config' | 'rs' | 'vs'; name?: string; word?: AdxKind }): { error?: string; mode: typeof mode } {
    const t = new AdxText(config);
    const w = splitAdxWords(cmd);
    const invalid = { error: `Invalid input -> ${cmd}\nType ? for a list`, mode };
    if (w[0] === 'server' && (w[1] === 'real' || w[1] === 'remote-name' || w[1] === 'virtual') && w[2]) {
      const at = t.find(w[1], w[2]);
      if (at < 0 && !w[3]) return { error: `Error: ${w[1]} server ${w[2]} does not exist; give its IP address to create it`, mode };
      if (at >= 0 && w[3] && splitAdxWords(t.lines[at]!)[3] !== w[3]) return { error: `Error: ${w[1]} server ${w[2]} already exists with IP ${splitAdxWords(t.lines[at]!)[3]}`, mode };
      t.enter(w[1], w[2], w[3] ?? splitAdxWords(t.lines[at]!)[3]!);
      config = t.text;
      return { mode: { kind: w[1] === 'virtual' ? 'vs' : 'rs', name: w[2], word: w[1] } };
    }
    if (w[0] === 'no' && w[1] === 'server' && (w[2] === 'real' || w[2] === 'remote-name' || w[2] === 'virtual') && w[3] && w.length === 4) {
      if (t.find(w[2], w[3]) < 0) return { error: `Error: ${w[2]} server ${w[3]} does not exist`, mode };
      const bound = w[2] !== 'virtual' ? boundTo(t, w[3]) : [];
      if (bound.length) return { error: `Error - real server ${w[3]} is bound to virtual server ${bound.join(', ')}; unbind it first`, mode };
      const at = t.find('virtual', w[3]);
      if (w[2] === 'virtual' && t.binds(at).length) return { error: `Error - virtual server ${w[3]} has real servers bound; unbind them first`, mode };
      t.remove(w[2], w[3]);
      config = t.text;
      return { mode: { kind: 'config' } };
    }
    if (mode.kind === 'config' || !mode.name) return invalid;
    if (!(mode.kind === 'rs' ? REAL_SUB : VIRTUAL_SUB).test(cmd)) return invalid;
    if (w[0] === 'bind') {
      for (let i = 2; i < w.length; i += 2) if (t.find('real', w[i]!) < 0 && t.find('remote-name', w[i]!) < 0) return { error: `Error: real server ${w[i]} does not exist`, mode };
    }
    t.enter(mode.kind === 'rs' ? mode.word ?? 'real' : 'virtual', mode.name, '');
    if (!t.sub(cmd)) return invalid;
    config = t.text;
    return { mode };
  }

  function shell(stream: ServerChannel): void {
    let level: 'user' | 'exec' | 'config' = opts.userMode ? 'user' : 'exec';
    let mode: { kind: 'config' | 'rs' | 'vs'; name?: string; word?: AdxKind } = { kind: 'config' };
    let paging = true;
    let input = '';
    let lastCr = false;
    let more: string[] | undefined;
    let dead = false;
    const out = (s: string) => { if (!stream.destroyed && !dead) stream.write(s.replace(/\r?\n/g, '\r\n')); };
    const prompt = () => out(level === 'user' ? 'ADX>' : level === 'exec' ? 'ADX#'
      : mode.kind === 'config' ? 'ADX(config)#' : `ADX(config-${mode.kind}-${mode.name})#`);
    const page = (lines: string[]) => {
      if (!paging || lines.length <= pageLines) { out(`${lines.join('\n')}\n`); prompt(); return; }
      out(`${lines.slice(0, pageLines).join('\n')}\n--More--, next page: Space, next line: Return key, quit: Control-c`);
      more = lines.slice(pageLines);
    };
    const execute = (line: string) => {
      const cmd = line.trim();
      if (cmd === '') { prompt(); return; }
      received.push(cmd);
      if (cmd === 'show running-config' || cmd === 'show run') { page(show().replace(/\n$/, '').split('\n')); return; }
      if (cmd === 'show server real' && level !== 'user') { page(showReal()); return; }
      if (opts.failOn?.test(cmd)) { out(`Error: ${cmd}: the box refuses this (test)\n`); prompt(); return; }
      if (level === 'user') {
        if (cmd === 'enable') level = 'exec';
        else if (cmd === 'exit') { stream.exit(0); stream.end(); return; }
        else out(`Invalid input -> ${cmd}\nType ? for a list\n`);
        prompt();
        return;
      }
      if (cmd === 'skip-page-display') { paging = false; prompt(); return; }
      if (level === 'exec') {
        if (cmd === 'configure terminal' || cmd === 'conf t') { level = 'config'; mode = { kind: 'config' }; }
        else if (cmd === 'write memory') { saved = config; out('Write startup-config done.\n'); }
        else if (cmd === 'enable') { /* already privileged */ }
        else if (cmd === 'exit') { stream.exit(0); stream.end(); return; }
        else out(`Invalid input -> ${cmd}\nType ? for a list\n`);
        prompt();
        return;
      }
      if (cmd === 'end') { level = 'exec'; prompt(); return; }
      if (cmd === 'exit') { if (mode.kind === 'config') level = 'exec'; else mode = { kind: 'config' }; prompt(); return; }
      if (cmd === 'write memory') { saved = config; out('Write startup-config done.\n'); prompt(); return; }
      const r = configure(cmd, mode);
      mode = r.mode;
      if (r.error) out(`${r.error}\n`);
      if (!r.error && cut?.test(cmd)) { cut = undefined; dead = true; drop(); return; }
      prompt();
    };
    stream.on('data', (d: Buffer) => {
      for (const ch of d.toString('utf8')) {
        if (more) {
          const rest = more;
          more = undefined;
          out('\r                                                                        \r');
          if (ch === '\x03') { prompt(); continue; }
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
    out('\nSSH@ADX login accepted (lbdesk ADX test box)\n\n');
    prompt();
  }

  const box = await startSshBox(opts.host, { shell });
  drop = box.dropAll;
  return { ...box, received, running: () => config, saved: () => saved, show, sessions, health, showReal: () => showReal().join('\n') };
}
