// Greeting dialogues for the ADX's Layer 7 TCP protocols (seed 000): read the server's
// greeting, judge it by the protocol's success codes, then leave politely (QUIT/LOGOUT) and
// keep the server's answer to that as evidence. The response time is the time to the greeting.
import type { Conn } from './conn';
import { dialogue } from './conn';
import type { Evidence, ProbeContext, ProbeOutcome } from './types';
import { ProbeFailure, clip, fail, fmtMs, pass, dialOf } from './util';

interface Greeting {
  /** The deciding line (last line of a multi-line reply). */
  line: string;
  /** Reply code or status word: "220", "+OK", "* OK". */
  code: string;
  lines: number;
}

interface BannerProtocol {
  label: string;
  defaultPort: number;
  /** What the server should say first, for the reason when it doesn't. */
  expects: string;
  read: (c: Conn) => Promise<Greeting>;
  ok: (g: Greeting) => boolean;
  quit?: { send: string; read: (c: Conn) => Promise<string> };
}

/** RFC 959 / 5321 / 3977 replies: `220 text`, or `220-...` lines ending with `220 text`. */
async function numericReply(c: Conn): Promise<Greeting> {
  const first = await c.line();
  const m = /^(\d{3})([ -]|$)/.exec(first);
  if (!m) throw new ProbeFailure(`not a numeric reply: "${clip(first, 80)}"`, { banner: clip(first) });
  let line = first;
  let lines = 1;
  if (m[2] === '-') {
    while (!line.startsWith(`${m[1]} `) && line !== m[1]) {
      if (++lines > 200) throw new ProbeFailure('multi-line greeting longer than 200 lines');
      line = await c.line();
    }
  }
  return { line: lines > 1 ? `${first} | ${line}` : first, code: m[1]!, lines };
}

async function firstLine(c: Conn): Promise<Greeting> {
  const line = await c.line();
  return { line, code: /^(\S+(?: (?:OK|PREAUTH|BYE))?)/i.exec(line)?.[1] ?? line.slice(0, 8), lines: 1 };
}

async function numericQuit(c: Conn): Promise<string> {
  return (await numericReply(c)).line;
}

export const BANNER_PROTOCOLS = {
  ftp: {
    label: 'FTP', defaultPort: 21, expects: '220 greeting', read: numericReply, ok: (g) => g.code === '220',
    quit: { send: 'QUIT\r\n', read: numericQuit },
  },
  smtp: {
    label: 'SMTP', defaultPort: 25, expects: '220 greeting', read: numericReply, ok: (g) => g.code === '220',
    quit: { send: 'QUIT\r\n', read: numericQuit },
  },
  nntp: {
    label: 'NNTP', defaultPort: 119, expects: '200 or 201 greeting', read: numericReply, ok: (g) => g.code === '200' || g.code === '201',
    quit: { send: 'QUIT\r\n', read: numericQuit },
  },
  pop3: {
    label: 'POP3', defaultPort: 110, expects: '+OK greeting', read: firstLine, ok: (g) => g.line.startsWith('+OK'),
    quit: { send: 'QUIT\r\n', read: (c) => c.line() },
  },
  imap4: {
    label: 'IMAP4', defaultPort: 143, expects: '* OK or * PREAUTH greeting', read: firstLine,
    ok: (g) => /^\* (OK|PREAUTH)\b/i.test(g.line),
    quit: {
      send: 'a1 LOGOUT\r\n',
      read: async (c) => {
        // "* BYE ..." then "a1 OK LOGOUT completed".
        for (let i = 0; i < 20; i++) {
          const l = await c.line();
          if (/^a1 /i.test(l)) return l;
        }
        throw new ProbeFailure('no tagged reply to LOGOUT');
      },
    },
  },
} satisfies Record<string, BannerProtocol>;

export type BannerName = keyof typeof BANNER_PROTOCOLS;

/** Waits for `p` at most `ms`; undefined when it takes longer or fails. */
function within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(undefined), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      () => {
        clearTimeout(t);
        resolve(undefined);
      },
    );
  });
}

/** How long a passed check waits for the answer to its QUIT: politeness, not a verdict. */
const QUIT_WAIT_MS = 500;

export function bannerProbe(name: BannerName, ctx: ProbeContext): Promise<ProbeOutcome> {
  const proto: BannerProtocol = BANNER_PROTOCOLS[name];
  const port = ctx.port ?? proto.defaultPort;
  return dialogue(dialOf(ctx), port, ctx.timeoutMs, async (c) => {
    c.phase = `waiting for the ${proto.label} greeting`;
    const g = await proto.read(c);
    const ms = c.elapsed();
    const ev: Evidence = { banner: clip(g.line), code: g.code, connectMs: c.connectMs ?? 0, greetingMs: ms };
    if (g.lines > 1) ev.greetingLines = g.lines;
    if (!proto.ok(g)) return fail(`${proto.label} greeting "${clip(g.line, 80)}" is not a ${proto.expects}`, ev, ms);
    if (proto.quit) {
      c.phase = 'waiting for the answer to QUIT';
      c.write(proto.quit.send);
      const bye = await within(Math.min(QUIT_WAIT_MS, Math.max(0, ctx.timeoutMs - c.elapsed())), proto.quit.read(c));
      if (bye !== undefined) ev.quitReply = clip(bye);
    }
    return pass(`${proto.label} greeting "${clip(g.line, 80)}" in ${fmtMs(ms)}`, ev, ms);
  }).then((r) => (r instanceof ProbeFailure ? fail(r.reason, r.evidence) : r));
}

/**
 * TELNET has no greeting code: a live telnetd opens with option negotiation (IAC ...) or a
 * login prompt. Any byte within the deadline passes; a close or silence fails.
 */
export function telnetProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = ctx.port ?? 23;
  return dialogue(dialOf(ctx), port, ctx.timeoutMs, async (c) => {
    c.phase = 'waiting for the TELNET server to speak';
    const first = await c.some();
    const ms = c.elapsed();
    const iac = first[0] === 0xff;
    const shown = iac ? `IAC negotiation (${first.subarray(0, 12).toString('hex')})` : `"${clip(first.toString('latin1'), 60)}"`;
    return pass(`TELNET server sent ${shown} in ${fmtMs(ms)}`, { firstBytes: first.subarray(0, 32).toString('hex'), negotiation: iac, connectMs: c.connectMs ?? 0 }, ms);
  }).then((r) => (r instanceof ProbeFailure ? fail(r.reason, r.evidence) : r));
}

/** RTSP (RFC 2326): `OPTIONS * RTSP/1.0`; a 2xx status passes. */
export function rtspProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = ctx.port ?? 554;
  return dialogue(dialOf(ctx), port, ctx.timeoutMs, async (c) => {
    c.phase = 'waiting for the answer to OPTIONS';
    c.write('OPTIONS * RTSP/1.0\r\nCSeq: 1\r\nUser-Agent: lbdesk-health/1\r\n\r\n');
    const status = await c.line();
    const ms = c.elapsed();
    const m = /^RTSP\/(\d\.\d) (\d{3})(?: .*)?$/.exec(status);
    if (!m) return fail(`not an RTSP response: "${clip(status, 80)}"`, { statusLine: clip(status) }, ms);
    const ev: Evidence = { statusLine: clip(status), status: Number(m[2]), connectMs: c.connectMs ?? 0 };
    // The Public header lists the methods the server supports: useful evidence, never required.
    for (let i = 0; i < 50; i++) {
      const h = await c.line().catch(() => '');
      if (h === '') break;
      if (/^public:/i.test(h)) ev.public = clip(h.slice(7).trim());
    }
    const code = Number(m[2]);
    if (code < 200 || code > 299) return fail(`OPTIONS answered RTSP/${m[1]} ${code} (not 2xx)`, ev, ms);
    return pass(`OPTIONS answered RTSP/${m[1]} ${code} in ${fmtMs(ms)}`, ev, ms);
  }).then((r) => (r instanceof ProbeFailure ? fail(r.reason, r.evidence) : r));
}
