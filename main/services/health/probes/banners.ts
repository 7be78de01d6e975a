// Greeting dialogues for the ADX's Layer 7 TCP protocols (seed 000): read the server's
// greeting, judge it by the protocol's success codes, then leave politely (QUIT/LOGOUT) and
// keep the server's answer to that as evidence. The response time is the time to the greeting.
import { CHECKS, type ReplyShape, type ResolvedType } from '../../../../shared/model/checks';
import type { Conn } from './conn';
import { dialogue } from './conn';
import type { Evidence, ProbeContext, ProbeOutcome } from './types';
import { ProbeFailure, clip, fail, fmtMs, pass, dialOf, portFor } from './util';

interface Greeting {
  /** The deciding line (last line of a multi-line reply). */
  line: string;
  /** Reply code or status word: "220", "+OK", "* OK". */
  code: string;
  lines: number;
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

/** A reply read the way the dialogue says: the deciding line. */
async function replyLine(c: Conn, shape: ReplyShape): Promise<string> {
  if (shape === 'numeric') return (await numericReply(c)).line;
  if (shape === 'line') return c.line();
  const tagged = new RegExp(`^${shape.tagged.replace(/[^A-Za-z0-9]/g, '\\$&')} `, 'i');
  for (let i = 0; i < 20; i++) {
    const l = await c.line();
    if (tagged.test(l)) return l;
  }
  throw new ProbeFailure(`no tagged reply (${shape.tagged})`);
}

type Checks = typeof CHECKS;
/** The protocols whose dialogue is a greeting read as a numeric reply or a line (FTP, SMTP, POP3, IMAP4, NNTP). */
export type BannerName = { [K in ResolvedType]: Checks[K] extends { dialogue: { reply: 'numeric' | 'line' } } ? K : never }[ResolvedType];

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
  const { label, dialogue: talk } = CHECKS[name];
  const port = portFor(ctx, name);
  return dialogue(dialOf(ctx), port, ctx.timeoutMs, async (c) => {
    c.phase = `waiting for the ${label} greeting`;
    const g = talk.reply === 'numeric' ? await numericReply(c) : await firstLine(c);
    const ms = c.elapsed();
    const ev: Evidence = { banner: clip(g.line), code: g.code, connectMs: c.connectMs ?? 0, greetingMs: ms };
    if (g.lines > 1) ev.greetingLines = g.lines;
    const ok = 'codes' in talk.pass ? (talk.pass.codes as readonly string[]).includes(g.code) : talk.pass.line.test(g.line);
    if (!ok) return fail(`${label} greeting "${clip(g.line, 80)}" is not a ${talk.expects}`, ev, ms);
    c.phase = 'waiting for the answer to QUIT';
    c.write(talk.quit.send);
    const bye = await within(Math.min(QUIT_WAIT_MS, Math.max(0, ctx.timeoutMs - c.elapsed())), replyLine(c, talk.quit.reply));
    if (bye !== undefined) ev.quitReply = clip(bye);
    return pass(`${label} greeting "${clip(g.line, 80)}" in ${fmtMs(ms)}`, ev, ms);
  }).then((r) => (r instanceof ProbeFailure ? fail(r.reason, r.evidence) : r));
}

/**
 * TELNET has no greeting code: a live telnetd opens with option negotiation (IAC ...) or a
 * login prompt. Any byte within the deadline passes; a close or silence fails.
 */
export function telnetProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = portFor(ctx, 'telnet');
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
  const port = portFor(ctx, 'rtsp');
  const talk = CHECKS.rtsp.dialogue;
  const [low, high] = talk.pass.status;
  return dialogue(dialOf(ctx), port, ctx.timeoutMs, async (c) => {
    c.phase = 'waiting for the answer to OPTIONS';
    c.write(`${talk.request}User-Agent: lbdesk-health/1\r\n\r\n`);
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
    if (code < low || code > high) return fail(`OPTIONS answered RTSP/${m[1]} ${code} (not ${talk.expects})`, ev, ms);
    return pass(`OPTIONS answered RTSP/${m[1]} ${code} in ${fmtMs(ms)}`, ev, ms);
  }).then((r) => (r instanceof ProbeFailure ? fail(r.reason, r.evidence) : r));
}
