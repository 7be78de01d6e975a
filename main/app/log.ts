// The desktop app's log: one line per event in <data>/logs/main.log, rotated at 1 MiB. Messages
// name things (files, secret names, refused URLs), never secret values.
import { appendFileSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

export type Level = 'info' | 'warn' | 'error';

export class FileLog {
  readonly file: string;
  constructor(dir: string, private readonly opts: { maxBytes?: number; echo?: boolean } = {}) {
    this.file = join(dir, 'main.log');
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  }

  readonly write = (level: Level, message: string): void => {
    // One line per event, whatever the message holds.
    const line = `${new Date().toISOString()} ${level.toUpperCase()} ${message.replace(/[\r\n]+/g, ' ')}\n`;
    try {
      this.rotate();
      appendFileSync(this.file, line, { mode: 0o600 });
    } catch {
      // A full or read-only disk must not take the app down.
    }
    if (this.opts.echo) process.stderr.write(line);
  };

  private rotate(): void {
    const size = statSync(this.file, { throwIfNoEntry: false })?.size ?? 0;
    if (size > (this.opts.maxBytes ?? 1024 * 1024)) renameSync(this.file, `${this.file}.1`);
  }
}
