// An interactive session with a vendor CLI over an SSH shell channel: wait for the prompt,
// send one line, page through `--More--`, answer confirmation questions, and read what came
// back. Every wait has a deadline; nothing sent or received is logged unredacted.
import { StringDecoder } from 'node:string_decoder';
import type { Client, ClientChannel } from 'ssh2';
import type { CliPatterns } from '../../drivers/box-patterns';
import { CONTROL } from '../../../../shared/model/text-rules';
import { bounded, matchTail, PatternTimeout } from '../../drivers/pattern-bound';
import { redact } from './redact';
import { cleanScreen, lastLine } from './screen';

export type BoxCliErrorKind = 'timeout' | 'closed' | 'refused' | 'too-much-output';

export class BoxCliError extends Error {
  constructor(readonly kind: BoxCliErrorKind, message: string) {
    super(message);
    this.name = 'BoxCliError';
  }
}

export interface CommandResult {
  command: string;
  /** What the appliance printed: no echo, no pager prompts, no final prompt. */
  output: string;
  /** The prompt that ended the command (`ADX(config-rs-web1)#`). */
  prompt: string;
  /** The first output line matching an error pattern. */
  error?: string;
  /** Confirmation questions answered on the way. */
  answered: string[];
}

export interface BoxSessionOptions {
  patterns: CliPatterns;
  /** Idle deadline of every wait: reset whenever the appliance sends something. */
  timeoutMs: number;
  label?: string;
  /** Bytes one command may print before the session gives up (default 16 MiB). */
  maxOutput?: number;
  /** Called with redacted, cleaned output as each command completes. */
  onTranscript?: (text: string) => void;
}

/** A prompt of an unexpected name is accepted when nothing follows it for this long. */
const QUIET_MS = 400;
const MAX_TRANSCRIPT = 512 * 1024;

/** The host-name part of a prompt: `ADX` of `ADX(config)#`, `SummitPx1` of `* SummitPx1:28 #`. */
export function promptBase(prompt: string): string | undefined {
  return /^[\w.@-]+/.exec(prompt.replace(/^\*\s*/, ''))?.[0];
}

function withoutLastLine(text: string): string {
  const nl = text.lastIndexOf('\n');
  return nl < 0 ? '' : text.slice(0, nl + 1);
}

function openShell(client: Client): Promise<ClientChannel> {
  return new Promise((resolve, reject) => {
    client.shell({ term: 'vt100', cols: 511, rows: 24 }, (err, ch) => {
      if (err) reject(new BoxCliError('refused', `no interactive shell: ${err.message}`));
      else resolve(ch);
    });
  });
}

export class BoxSession {
  private raw = '';
  private base?: string;
  private prompt = '';
  private closed = false;
  private notify?: () => void;
  private transcriptText = '';
  private readonly label: string;

  private constructor(private readonly ch: ClientChannel, private readonly opts: BoxSessionOptions) {
    this.label = opts.label ?? 'appliance';
    const decoder = new StringDecoder('utf8');
    const onData = (d: Buffer) => { this.raw += decoder.write(d); this.notify?.(); };
    ch.on('data', onData);
    ch.stderr.on('data', onData);
    ch.on('close', () => { this.closed = true; this.notify?.(); });
    ch.on('error', () => undefined);
  }

  /** Opens a shell and waits for the first prompt (pressing Enter once if none comes soon). */
  static async open(client: Client, opts: BoxSessionOptions): Promise<BoxSession> {
    const s = new BoxSession(await openShell(client), opts);
    let nudged = false;
    const nudge = setTimeout(() => { nudged = true; s.send('\n'); }, Math.min(opts.timeoutMs / 3, 2000));
    try {
      const r = await s.wait('at login', opts.timeoutMs);
      clearTimeout(nudge);
      // The Enter may still bring a second prompt: let it come before the first command.
      if (nudged) await s.settle();
      s.base = promptBase(r.prompt);
      s.prompt = r.prompt;
      s.record(withoutLastLine(cleanScreen(r.text)));
      return s;
    } catch (err) {
      s.close();
      throw err;
    } finally {
      clearTimeout(nudge);
    }
  }

  get isClosed(): boolean { return this.closed; }
  get currentPrompt(): string { return this.prompt; }
  /** Everything seen so far, cleaned and redacted (bounded). */
  get transcript(): string { return `${this.transcriptText}${this.prompt}`; }

  private send(text: string): void {
    if (!this.closed) this.ch.write(text);
  }

  private record(text: string): void {
    const t = redact(text);
    this.transcriptText += t.endsWith('\n') || t === '' ? t : `${t}\n`;
    if (this.transcriptText.length > MAX_TRANSCRIPT) this.transcriptText = `…${this.transcriptText.slice(-MAX_TRANSCRIPT)}`;
    this.opts.onTranscript?.(t);
  }

  /** Waits for a prompt, paging and answering questions on the way. */
  private wait(what: string, timeoutMs: number): Promise<{ text: string; prompt: string; answered: string[] }> {
    const p = this.opts.patterns;
    const max = this.opts.maxOutput ?? 16 * 1024 * 1024;
    return new Promise((resolve, reject) => {
      let handledAt = -1;
      const answered: string[] = [];
      let idle: NodeJS.Timeout | undefined;
      let quiet: NodeJS.Timeout | undefined;
      const overall = setTimeout(() => finish(new BoxCliError('timeout', `${this.label}: ${what}: output did not end within ${Math.round((timeoutMs * 10) / 1000)} s`)), timeoutMs * 10);
      const finish = (err?: Error, prompt?: string) => {
        clearTimeout(idle);
        clearTimeout(quiet);
        clearTimeout(overall);
        this.notify = undefined;
        if (err) reject(err);
        else resolve({ text: this.raw, prompt: prompt!, answered });
      };
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(() => {
          const seen = redact(lastLine(this.raw)).slice(-80);
          finish(new BoxCliError('timeout', `${this.label}: no prompt within ${timeoutMs} ms ${what}${seen ? ` (last output: ${JSON.stringify(seen)})` : ''}`));
        }, timeoutMs);
      };
      const check = () => {
        if (this.raw.length > max) return finish(new BoxCliError('too-much-output', `${this.label}: more than ${max} bytes of output ${what}`));
        const partial = matchTail(lastLine(this.raw));
        clearTimeout(quiet);
        let seen: { pager: boolean; confirm: boolean; prompt: boolean };
        try {
          seen = bounded([p.pager, p.confirm, p.prompt], `${this.label}: matching cli.prompt, cli.pager and cli.confirm ${what}`, () => ({
            pager: p.pager.test(partial), confirm: p.confirm.test(partial), prompt: p.prompt.test(partial),
          }));
        } catch (err) {
          if (err instanceof PatternTimeout) return finish(new BoxCliError('refused', err.message));
          throw err;
        }
        if (partial.trim() !== '' && handledAt !== this.raw.length) {
          if (seen.pager) {
            handledAt = this.raw.length;
            return this.send(p.pagerKey);
          }
          if (seen.confirm) {
            handledAt = this.raw.length;
            answered.push(partial.trim());
            if (CONTROL.test(p.confirmAnswer)) return finish(new BoxCliError('refused', `${this.label}: cli.confirmAnswer cannot contain a line break or another control character`));
            return this.send(`${p.confirmAnswer}\n`);
          }
        }
        if (seen.prompt) {
          if (this.base === undefined || promptBase(partial) === this.base) return finish(undefined, partial);
          // The host name changed (a `hostname` command): take it once the appliance falls silent.
          quiet = setTimeout(() => { this.base = promptBase(partial); finish(undefined, partial); }, QUIET_MS);
          return;
        }
        if (this.closed) finish(new BoxCliError('closed', `${this.label}: the session closed ${what}`));
      };
      this.notify = () => { arm(); check(); };
      arm();
      check();
    });
  }

  /** Matching under the workspace patterns' time bound; an overrun refuses the command. */
  private matched<T>(patterns: RegExp[], what: string, work: () => T): T {
    try {
      return bounded(patterns, what, work);
    } catch (err) {
      if (err instanceof PatternTimeout) throw new BoxCliError('refused', err.message);
      throw err;
    }
  }

  /** Sends one line and returns what the appliance answered, once its prompt is back. */
  async run(command: string, opts: { timeoutMs?: number } = {}): Promise<CommandResult> {
    if (this.closed) throw new BoxCliError('closed', `${this.label}: the session is closed`);
    // One command is one line: a line break would send a second one, a tab would complete a word.
    if (CONTROL.test(command)) throw new BoxCliError('refused', 'a command cannot contain a line break or another control character');
    this.raw = '';
    this.send(`${command}\n`);
    const r = await this.wait(`after "${redact(command).slice(0, 60)}"`, opts.timeoutMs ?? this.opts.timeoutMs);
    const screen = cleanScreen(r.text);
    this.record(`${this.prompt}${screen.startsWith(command) ? '' : '\n'}${withoutLastLine(screen)}`);
    this.prompt = r.prompt;
    const lines = screen.split('\n');
    lines.pop(); // the prompt
    if (lines.length && lines[0]!.trimEnd().endsWith(command.trim())) lines.shift(); // the echo
    const { pager: pagerPattern, errors } = this.opts.patterns;
    const pager = new RegExp(pagerPattern.source, `${pagerPattern.flags.replace('g', '')}g`);
    const { out, error } = this.matched([pagerPattern, ...errors], `${this.label}: matching cli.pager and cli.errors after "${redact(command).slice(0, 60)}"`, () => {
      const kept: string[] = [];
      for (const line of lines) {
        const stripped = line.replace(pager, '').trimEnd();
        if (stripped === '' && line.trim() !== '') continue; // nothing but a pager prompt
        kept.push(stripped);
      }
      return { out: kept, error: kept.find((l) => errors.some((re) => re.test(l))) };
    });
    return { command, output: out.join('\n'), prompt: r.prompt, answered: r.answered, ...(error !== undefined ? { error } : {}) };
  }

  /** Ctrl-C (then Enter if needed) and a prompt: gets out of a command that hangs. False if none comes back. */
  async interrupt(timeoutMs = Math.min(this.opts.timeoutMs, 3000)): Promise<boolean> {
    if (this.closed) return false;
    this.raw = '';
    this.send('\x03');
    let r: { text: string; prompt: string } | undefined;
    try {
      r = await this.wait('after Ctrl-C', timeoutMs / 2);
    } catch {
      this.send('\n');
      r = await this.wait('after Ctrl-C and Enter', timeoutMs / 2).catch(() => undefined);
    }
    if (!r) return false;
    await this.settle();
    this.record(`${this.prompt}${withoutLastLine(cleanScreen(r.text))}`);
    this.prompt = r.prompt;
    return true;
  }

  /** Waits until the appliance has been silent for a moment (bounded), then forgets what came. */
  private async settle(quietMs = 200, maxMs = 2000): Promise<void> {
    const until = Date.now() + maxMs;
    let seen = this.raw.length;
    while (Date.now() < until) {
      await new Promise((r) => setTimeout(r, quietMs));
      if (this.raw.length === seen) break;
      seen = this.raw.length;
    }
  }

  close(): void {
    if (this.closed) return;
    this.ch.end();
    this.ch.close();
  }
}
