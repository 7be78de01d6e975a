// The CLI's last resort: ask on the terminal, once per process, with echo off; never write the
// answer anywhere. Without a terminal (CI, cron, a pipe) a missing secret is a clear error that
// names it, instead of a hang.
import type { Readable, Writable } from 'node:stream';
import type { SecretStore } from './types';

/** A terminal input: a TTY read stream (process.stdin when it is one). */
export interface TtyInput extends Readable {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

export class SecretUnavailableError extends Error {
  constructor(readonly secret: string, detail: string) {
    super(`secret "${secret}" is needed but ${detail}`);
    this.name = 'SecretUnavailableError';
  }
}

export interface PromptOptions {
  input?: TtyInput;
  output?: Writable;
  /** Looked in first (the keyring); the prompt only runs when it has nothing. */
  backing?: SecretStore;
  /** Said in the error when there is no terminal: where the user can put the secret instead. */
  hint?: string | ((name: string) => string);
}

/** What the user is asked for, from the secret's name (`appliance/lb1/password` …). */
export function promptText(name: string): string {
  const [kind, subject, what] = name.split('/');
  if (kind === 'appliance' && subject && what === 'password') return `SSH password for appliance ${subject}: `;
  if (kind === 'appliance' && subject && what === 'sudo-password') return `sudo password for appliance ${subject}: `;
  if (kind === 'key' && what === 'passphrase') return `Passphrase for key ${name.slice(4, -'/passphrase'.length)}: `;
  return `Secret ${name}: `;
}

/** Reads one line from a TTY in raw mode without echoing it. Ctrl-C and Ctrl-D cancel. */
export function readHidden(prompt: string, input: TtyInput, output: Writable): Promise<string> {
  return readLine(prompt, input, output, false);
}

/** One line from a TTY in raw mode, echoed only when `echo` (a code the server wants seen). */
export function readLine(prompt: string, input: TtyInput, output: Writable, echo: boolean): Promise<string> {
  return new Promise((done, fail) => {
    let value = '';
    // Echo off before the prompt shows, so nothing typed (or pasted) after it can be echoed.
    input.setRawMode?.(true);
    output.write(prompt);
    input.resume();
    const finish = (err?: Error) => {
      input.off('data', onData);
      input.setRawMode?.(false);
      input.pause();
      output.write('\n');
      if (err) fail(err);
      else done(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of String(chunk)) {
        if (ch === '\r' || ch === '\n') return finish();
        if (ch === '\u0003' || ch === '\u0004') return finish(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') {
          if (echo && value) output.write('\b \b');
          value = value.slice(0, -1);
        } else if (ch >= ' ') {
          value += ch;
          if (echo) output.write(ch);
        }
      }
    };
    input.on('data', onData);
  });
}

export class PromptSecretStore implements SecretStore {
  private readonly values = new Map<string, string>();
  private readonly asking = new Map<string, Promise<string>>();
  /** One prompt on the terminal at a time. */
  private turn: Promise<unknown> = Promise.resolve();
  private readonly input: TtyInput;
  private readonly output: Writable;

  constructor(private readonly opts: PromptOptions = {}) {
    this.input = opts.input ?? process.stdin;
    this.output = opts.output ?? process.stderr;
  }

  get interactive(): boolean {
    return this.input.isTTY === true && typeof this.input.setRawMode === 'function';
  }

  async get(name: string): Promise<string | undefined> {
    const known = this.values.get(name) ?? (await this.opts.backing?.get(name));
    if (known !== undefined) return known;
    if (!this.interactive) {
      const hint = typeof this.opts.hint === 'function' ? this.opts.hint(name) : this.opts.hint;
      throw new SecretUnavailableError(name, `there is no terminal to ask for it${hint ? `; ${hint}` : ''}`);
    }
    // Two callers needing the same secret at once get one prompt.
    let pending = this.asking.get(name);
    if (!pending) {
      pending = this.turn
        .then(() => readHidden(promptText(name), this.input, this.output))
        .finally(() => this.asking.delete(name));
      this.turn = pending.catch(() => undefined);
      this.asking.set(name, pending);
    }
    const value = await pending.catch((err: Error) => {
      throw new SecretUnavailableError(name, `the prompt was ${err.message}`);
    });
    this.values.set(name, value);
    return value;
  }

  async set(name: string, value: string): Promise<void> {
    if (this.opts.backing) await this.opts.backing.set(name, value);
    else this.values.set(name, value);
  }

  async delete(name: string): Promise<void> {
    this.values.delete(name);
    await this.opts.backing?.delete(name);
  }

  async has(name: string): Promise<boolean> {
    return this.values.has(name) || ((await this.opts.backing?.has(name)) ?? false);
  }
}

/**
 * A keyboard-interactive round on the terminal, as OpenSSH shows it: the server's title and
 * instructions, then each prompt (hidden unless the server asks for echo). Undefined when
 * cancelled. Callers offer this only when stdin is a terminal.
 */
export async function askOnTerminal(p: { host: string; name: string; instructions: string; prompts: { prompt: string; echo: boolean }[] }, input: TtyInput = process.stdin, output: Writable = process.stderr): Promise<string[] | undefined> {
  const head = [p.name, p.instructions].map((t) => t.trim()).filter(Boolean);
  output.write(`(${p.host})${head.length ? ` ${head.join('\n')}` : ''}\n`);
  const answers: string[] = [];
  try {
    for (const q of p.prompts) answers.push(await readLine(q.prompt, input, output, q.echo));
  } catch {
    return undefined;
  }
  return answers;
}
