// An in-process SSH server that behaves like a vendor load balancer: a CLI shell with an
// ADX-style (`ADX(config)#`) or Px-style (`SummitPx1:12 #`) prompt, `--More--` paging,
// `(y/n)` questions, `% Error` lines (exit 0), SCP to an in-memory flash, and no POSIX shell.
import { createHash } from 'node:crypto';
import type { ServerChannel } from 'ssh2';
import { startSshBox, type SshBox } from './ssh-box';

export interface FakeOptions {
  host: string;
  style?: 'adx' | 'px';
  /** A line that makes the appliance print `% Error: invalid input at line N`. */
  failOn?: string | RegExp;
  /** A command after which the appliance never shows its prompt again. */
  hangOn?: string;
  /** Lines per page before `--More--` (default 8). */
  pageLines?: number;
  /** Commands that ask `Are you sure? (y/n)` first. */
  confirmOn?: RegExp;
  /** Running configuration at start (ADX: blocks as lines, sub-lines indented). */
  running?: string[];
}

export interface FakeAppliance extends SshBox {
  /** Every line received in shell sessions, in order, across sessions. */
  received: string[];
  /** Exec commands received (SCP and anything else). */
  execs: string[];
  /** The in-memory flash: SCP target files. */
  files: Map<string, Buffer>;
  running(): string[];
  /** What `show running-config` prints now (volatile lines change every call). */
  showRunning(): string;
}

interface Block { head: string; body: string[] }

export async function startFakeAppliance(opts: FakeOptions): Promise<FakeAppliance> {
  const style = opts.style ?? 'adx';
  const hostname = style === 'adx' ? 'ADX' : 'SummitPx1';
  const pageLines = opts.pageLines ?? 8;
  const confirmOn = opts.confirmOn ?? (style === 'adx' ? /^(write memory|no server )/ : /^(save configuration|delete )/);
  const received: string[] = [];
  const execs: string[] = [];
  const files = new Map<string, Buffer>();
  const blocks: Block[] = [];
  let calls = 0;

  for (const line of opts.running ?? []) store(line);

  function store(line: string): void {
    if (style === 'px') {
      const m = /^delete (.+)$/.exec(line);
      if (m) {
        const target = m[1]!;
        for (let i = blocks.length - 1; i >= 0; i--) {
          const words = blocks[i]!.head.replace(/^(create|configure|disable|enable) /, '');
          if (words === target || words.startsWith(`${target} `)) blocks.splice(i, 1);
        }
        return;
      }
      if (!blocks.some((b) => b.head === line)) blocks.push({ head: line, body: [] });
      return;
    }
    if (/^\s/.test(line)) {
      const cur = blocks[blocks.length - 1];
      const sub = line.trim();
      if (!cur) { blocks.push({ head: line, body: [] }); return; }
      if (sub.startsWith('no ')) { cur.body = cur.body.filter((l) => l.trim() !== sub.slice(3)); return; }
      cur.body.push(line);
      return;
    }
    if (line.startsWith('no ')) {
      const target = line.slice(3);
      for (let i = blocks.length - 1; i >= 0; i--) {
        const h = blocks[i]!.head;
        if (h === target || h.startsWith(`${target} `)) blocks.splice(i, 1);
      }
      return;
    }
    const at = blocks.findIndex((b) => b.head === line);
    const block = { head: line, body: [] };
    if (at >= 0) { blocks.splice(at, 1); }
    blocks.push(block);
  }

  const runningLines = () => blocks.flatMap((b) => [b.head, ...b.body]);

  function showRunning(): string {
    calls += 1;
    const t = new Date(Date.UTC(2026, 10, 29, 21, 0, calls));
    const clock = t.toISOString().slice(11, 19);
    const body = runningLines();
    if (style === 'px') {
      return [
        '#',
        `# Summit Px1 configuration, system time: ${clock}`,
        `System uptime: ${calls} days 4 hours`,
        `Fan speed: ${4000 + calls} RPM`,
        `Temperature: ${(38 + calls / 10).toFixed(1)} C`,
        '#',
        ...body,
        '',
      ].join('\n');
    }
    return [
      `!Current configuration : ${body.join('\n').length + calls} bytes`,
      `!Last configuration change at ${clock} UTC Sun Nov 29 2026`,
      `System uptime is ${calls} days 2 hours 14 minutes`,
      `Chassis temperature: ${(41 + calls / 10).toFixed(1)} C`,
      `Total sessions: ${1000 + calls * 7}`,
      '!',
      ...body,
      '!',
      '',
    ].join('\n');
  }

  function shell(stream: ServerChannel): void {
    let mode: 'exec' | 'config' | 'sub' = 'exec';
    let sub = '';
    let count = 0;
    let changed = false;
    let paging = true;
    let input = '';
    let lastCr = false;
    let pending: { kind: 'pager'; rest: string[] } | { kind: 'confirm'; line: string } | undefined;
    let hung = false;
    // Output is gathered per received chunk and written once (a packet per character is slow).
    let pendingOut = '';
    let batching = false;
    const flush = () => { if (pendingOut && !stream.destroyed) stream.write(pendingOut); pendingOut = ''; };
    const out = (s: string) => { pendingOut += s.replace(/\r?\n/g, '\r\n'); if (!batching) flush(); };
    const prompt = () => {
      if (hung) return;
      if (style === 'px') out(`${changed ? '* ' : ''}${hostname}:${count + 1} # `);
      else out(mode === 'exec' ? `${hostname}#` : mode === 'config' ? `${hostname}(config)#` : `${hostname}(config-${sub})#`);
    };
    const page = (lines: string[]) => {
      if (!paging || lines.length <= pageLines) { out(`${lines.join('\n')}\n`); prompt(); return; }
      out(`${lines.slice(0, pageLines).join('\n')}\n--More--`);
      pending = { kind: 'pager', rest: lines.slice(pageLines) };
    };
    const execute = (line: string) => {
      const cmd = line.trim();
      if (cmd === '') { prompt(); return; }
      count += 1;
      received.push(line);
      const fail = opts.failOn !== undefined && (typeof opts.failOn === 'string' ? cmd === opts.failOn.trim() : opts.failOn.test(cmd));
      if (fail) { out(`% Error: invalid input at line ${count}\n`); prompt(); return; }
      if (opts.hangOn !== undefined && cmd === opts.hangOn) { hung = true; return; }
      if (cmd === 'show running-config' || cmd === 'show run' || cmd === 'show configuration') { page(showRunning().replace(/\n$/, '').split('\n')); return; }
      if (cmd === 'show version') { page(Array.from({ length: 30 }, (_, i) => `line ${i + 1} of the version text`)); return; }
      if (cmd === 'skip-page-display' || cmd === 'disable clipaging') { paging = false; prompt(); return; }
      if (style === 'px') {
        if (cmd === 'save configuration') { changed = false; out('Configuration saved to primary.\n'); prompt(); return; }
        if (/^(create|configure|delete|disable|enable) /.test(cmd)) { store(cmd); changed = true; prompt(); return; }
        out(`Invalid input detected at '^' marker.\n`); prompt(); return;
      }
      if (mode === 'exec') {
        if (cmd === 'configure terminal') mode = 'config';
        else if (cmd === 'write memory') out('Write startup-config done.\n');
        else if (cmd === 'exit') { stream.exit(0); stream.end(); return; }
        else out(`Invalid input -> ${cmd}\nType ? for a list\n`);
        prompt();
        return;
      }
      if (cmd === 'end') { mode = 'exec'; prompt(); return; }
      if (cmd === 'exit') { mode = mode === 'sub' ? 'config' : 'exec'; prompt(); return; }
      if (cmd === 'write memory') { out('Write startup-config done.\n'); prompt(); return; }
      const top = !/^\s/.test(line);
      store(top ? cmd : line);
      const m = /^server (real|virtual|port|group) (\S+)/.exec(cmd);
      if (top && m) { mode = 'sub'; sub = `${m[1] === 'real' ? 'rs' : m[1] === 'virtual' ? 'vs' : m[1]}-${m[2]}`; }
      else if (top) mode = 'config';
      prompt();
    };
    const onLine = (line: string) => {
      if (pending?.kind === 'confirm') {
        const p = pending;
        pending = undefined;
        if (line.trim().toLowerCase().startsWith('y')) execute(p.line); else { out('Aborted.\n'); prompt(); }
        return;
      }
      if (confirmOn.test(line.trim())) {
        pending = { kind: 'confirm', line };
        out('Are you sure? (y/n)');
        return;
      }
      execute(line);
    };
    stream.on('data', (d: Buffer) => {
      batching = true;
      try { feed(d); } finally { batching = false; flush(); }
    });
    const feed = (d: Buffer) => {
      for (const ch of d.toString('utf8')) {
        if (pending?.kind === 'pager') {
          const rest = pending.rest;
          pending = undefined;
          out('\r        \r');
          if (ch === 'q') { prompt(); continue; }
          page(rest);
          continue;
        }
        if (ch === '\x03') { hung = false; input = ''; out('^C\n'); prompt(); continue; }
        if (ch === '\n' && lastCr) { lastCr = false; continue; }
        lastCr = ch === '\r';
        if (ch === '\r' || ch === '\n') {
          out('\n');
          const line = input;
          input = '';
          onLine(line);
          continue;
        }
        input += ch;
        out(ch);
      }
    };
    out(`Virtual ADX-like lab appliance (lbdesk test double)\n\n`);
    prompt();
  }

  function scpSink(stream: ServerChannel, path: string): void {
    let buf = Buffer.alloc(0);
    let state: 'header' | 'data' | 'end' | 'done' = 'header';
    let size = 0;
    let name = path;
    stream.write(Buffer.from([0]));
    stream.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        if (state === 'header') {
          const nl = buf.indexOf(0x0a);
          if (nl < 0) return;
          const line = buf.subarray(0, nl).toString();
          buf = buf.subarray(nl + 1);
          const m = /^C([0-7]{4}) (\d+) (.+)$/.exec(line);
          if (!m) { stream.write(`\x02scp: protocol error\n`); stream.exit(1); stream.end(); return; }
          if (path.startsWith('readonly')) { stream.write(`\x01scp: ${path}: Permission denied\n`); continue; }
          size = Number(m[2]);
          name = path;
          state = 'data';
          stream.write(Buffer.from([0]));
        } else if (state === 'data') {
          if (buf.length < size + 1) return;
          files.set(name, Buffer.from(buf.subarray(0, size)));
          buf = buf.subarray(size + 1);
          state = 'header';
          stream.write(Buffer.from([0]));
        } else return;
      }
    });
    stream.on('end', () => { stream.exit(0); stream.end(); });
  }

  function scpSource(stream: ServerChannel, path: string): void {
    const data = path === 'runConfig' ? Buffer.from(showRunning()) : files.get(path);
    let step = 0;
    stream.on('data', (d: Buffer) => {
      for (const _ of d) {
        step += 1;
        if (step === 1) {
          if (!data) { stream.write(`\x01scp: ${path}: No such file or directory\n`); stream.exit(1); stream.end(); return; }
          stream.write(`C0644 ${data.length} ${path.split('/').pop()}\n`);
        } else if (step === 2) {
          stream.write(data!);
          stream.write(Buffer.from([0]));
        } else if (step === 3) {
          stream.exit(0);
          stream.end();
        }
      }
    });
  }

  const box = await startSshBox(opts.host, {
    shell,
    exec(stream, command) {
      execs.push(command);
      const m = /^scp (-[tf]) (?:-- )?(\S+)$/.exec(command);
      if (m?.[1] === '-t') return scpSink(stream, m[2]!);
      if (m?.[1] === '-f') return scpSource(stream, m[2]!);
      // A vendor CLI: no POSIX shell, an error message and exit status 0.
      stream.write(`Invalid input -> ${command}\r\n`);
      stream.exit(0);
      stream.end();
    },
  });
  return { ...box, received, execs, files, running: runningLines, showRunning };
}

export function fingerprint(knownHostsLine: string): string {
  const b64 = knownHostsLine.split(' ')[2]!;
  return `SHA256:${createHash('sha256').update(Buffer.from(b64, 'base64')).digest('base64').replace(/=+$/, '')}`;
}
