// An SSH test box that behaves like a BIG-IP's tmsh: the `admin@(bigip1)(cfg-sync Standalone)
// (Active)(/Common)(tmos)# ` prompt, `---(less NN%)---` paging until `modify cli preference pager
// disabled`, tmsh's numbered error lines, `show running-config` in the bigip.conf format, and a
// running config it changes by the create/modify/delete commands it is sent (main/services/
// drivers/f5/edit.ts, which refuses what tmsh refuses). Transactions as tmsh has them: after
// `create cli transaction` commands are only queued; `submit cli transaction` applies all of
// them or, when one fails, none; a session that ends drops its transaction. `save sys config`
// keeps the saved config apart from the running one. It can fail on, or be cut after, a command.
import type { ServerChannel } from 'ssh2';
import { F5Text, applyF5Command, tokens } from '../../../main/services/drivers/f5/edit';
import { parseF5 } from '../../../main/services/drivers/f5/parse';
import { startSshBox, type SshBox } from './ssh-box';

export interface F5BoxOptions {
  host: string;
  /** The running config at start, as `show running-config` prints it. */
  config: string;
  pageLines?: number;
  /** A command the box refuses (at submit when it is in a transaction). */
  failOn?: RegExp;
  /** A command after which the box drops the connection (once) without answering. */
  cutAfter?: RegExp;
}

export interface F5Box extends SshBox {
  received: string[];
  running(): string;
  saved(): string;
  /** Runtime counters per member (`web1:80`): server-side connections, which the test sets and lowers. */
  sessions: Map<string, number>;
}

export const F5_BOX_PROMPT = 'admin@(bigip1)(cfg-sync Standalone)(Active)(/Common)(tmos)# ';

export async function startF5Box(opts: F5BoxOptions): Promise<F5Box> {
  let config = opts.config;
  let saved = opts.config;
  const received: string[] = [];
  const pageLines = opts.pageLines ?? 24;
  let cut = opts.cutAfter;
  let drop: () => void = () => undefined;

  /** Applies commands to a copy: the new config, or the first error (the config unchanged). */
  function apply(commands: string[]): { error?: string } {
    const t = new F5Text(config);
    for (const c of commands) {
      if (opts.failOn?.test(c)) return { error: `01070734:3: Configuration error: ${c}: the box refuses this (test)` };
      try { applyF5Command(t, c); } catch (e) { return { error: (e as Error).message }; }
    }
    config = t.text;
    return {};
  }

  const sessions = new Map<string, number>();
  const short = (n: string) => n.replace(/^\/Common\//, '');
  /** `show ltm pool members` as tmsh prints it: each pool, each member indented under a `| ` margin. */
  function showMembers(): string[] {
    const out: string[] = [];
    const rule = '-'.repeat(70);
    for (const p of parseF5(config).pools) {
      out.push(rule, `Ltm::Pool: ${short(p.obj.name!)}`, rule, 'Status', '  Availability : available', '  State        : enabled', '  Reason       : The pool is available', '');
      for (const m of p.members) {
        const n = sessions.get(short(m.name)) ?? 0;
        const avail = m.down ? 'offline' : 'available';
        const state = m.disabled || m.down ? 'disabled' : 'enabled';
        const reason = m.down ? 'Forced down' : m.disabled ? 'Pool member is available, user disabled' : 'Pool member is available';
        out.push(`  | Ltm::Pool Member: ${short(m.name)}`, `  | ${'-'.repeat(60)}`, '  | Status',
          `  |   Availability   : ${avail}`, `  |   State          : ${state}`, `  |   Reason         : ${reason}`,
          '  |   Monitor        : /Common/tcp (pool monitor)', `  |   Monitor Status : ${m.down ? 'forced down' : 'up'}`,
          `  |   Session Status : ${m.disabled ? 'user-disabled' : 'enabled'}`, '  |',
          '  |   Traffic                        ServerSide  General', `  |   Bits In                                 0        -`,
          `  |   Current Connections            ${String(n).padStart(10)}        -`, `  |   Maximum Connections            ${String(n).padStart(10)}        -`,
          `  |   Current Sessions                        -        ${n}`, '');
      }
    }
    return out;
  }

  function shell(stream: ServerChannel): void {
    let paging = true;
    let input = '';
    let lastCr = false;
    let more: { lines: string[]; total: number; shown: number } | undefined;
    let dead = false;
    let tx: string[] | undefined;
    const out = (s: string) => { if (!stream.destroyed && !dead) stream.write(s.replace(/\r?\n/g, '\r\n')); };
    const prompt = () => out(F5_BOX_PROMPT);
    const page = (lines: string[], total = lines.length, shown = 0) => {
      if (!paging || lines.length <= pageLines) { out(`${lines.join('\n')}\n`); prompt(); return; }
      out(`${lines.slice(0, pageLines).join('\n')}\n---(less ${Math.floor(((shown + pageLines) * 100) / total)}%)---`);
      more = { lines: lines.slice(pageLines), total, shown: shown + pageLines };
    };
    const list = (cmd: string): string[] | undefined => {
      if (cmd === 'show running-config' || cmd === 'list') return config.replace(/\n$/, '').split('\n');
      const w = cmd.split(/\s+/);
      if (w[0] !== 'list' || w[1] !== 'ltm') return undefined;
      const t = new F5Text(config);
      const objs = t.objects().filter((o) => o.kind.startsWith('ltm') && (!w[2] || o.kind === `ltm ${w[2]}`) && (!w[3] || o.name === w[3] || o.name === `/Common/${w[3]}`));
      if (w[3] && !objs.length) return undefined;
      return objs.flatMap((o) => t.lines.slice(o.head, o.end + 1));
    };
    const execute = (line: string) => {
      const cmd = line.trim().replace(/^tmsh\s+/, '');
      if (cmd === '') { prompt(); return; }
      received.push(cmd);
      const shown = cmd === 'show ltm pool members' ? showMembers() : list(cmd);
      if (shown) { page(shown); return; }
      const fail = (msg: string) => { out(`${msg}\n`); prompt(); };
      if (/^modify cli preference pager disabled( display-threshold 0)?$/.test(cmd)) { paging = false; prompt(); return; }
      if (cmd === 'create cli transaction') { if (tx) { fail('01420002:3: A transaction is already in progress.'); return; } tx = []; prompt(); return; }
      if (cmd === 'delete cli transaction') { if (!tx) { fail('01420003:3: No transaction is in progress.'); return; } tx = undefined; prompt(); return; }
      if (cmd === 'submit cli transaction') {
        if (!tx) { fail('01420003:3: No transaction is in progress.'); return; }
        const queued = tx;
        tx = undefined;
        const r = apply(queued);
        if (r.error) { fail(r.error); return; }
        prompt();
        return;
      }
      if (cmd === 'save sys config') {
        saved = config;
        out('Saving running configuration...\n  /config/bigip.conf\n  /config/bigip_base.conf\n  /config/bigip_user.conf\nSaving Ethernet map ...done\nSaving PVID for ports ...done\n');
        prompt();
        return;
      }
      if (cmd === 'quit' || cmd === 'exit') { stream.exit(0); stream.end(); return; }
      if (!/^(create|modify|delete) ltm /.test(cmd)) { fail(`Syntax Error: "${cmd.split(/\s+/)[0]}" unknown command`); return; }
      if (tx) {
        // tmsh checks the syntax when a command is queued, the objects at submit.
        try { tokens(cmd); } catch (e) { fail((e as Error).message); return; }
        tx.push(cmd);
      } else {
        const r = apply([cmd]);
        if (r.error) { fail(r.error); return; }
      }
      if (cut?.test(cmd)) { cut = undefined; dead = true; tx = undefined; drop(); return; }
      prompt();
    };
    stream.on('data', (d: Buffer) => {
      for (const ch of d.toString('utf8')) {
        if (more) {
          const rest = more;
          more = undefined;
          out('\r                      \r');
          if (ch === 'q' || ch === '\x03') { prompt(); continue; }
          page(rest.lines, rest.total, rest.shown);
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
    // A session that ends drops its transaction (tx is per session).
    stream.on('close', () => { tx = undefined; });
    out('Last login: Wed Dec  2 06:00:00 2026 from 127.0.0.1\n');
    prompt();
  }

  const box = await startSshBox(opts.host, { shell });
  drop = box.dropAll;
  return { ...box, sessions, received, running: () => config, saved: () => saved };
}
