// The open workspace file, watched: another editor's or a colleague's save is announced when it
// lands, not found at the next save. Polled (stat) so a save by rename — most editors' — is seen too.
import { unwatchFile, watchFile, type Stats } from 'node:fs';

export class WorkspaceWatch {
  private path?: string;
  private mtimeMs = 0;
  private readonly listener = (cur: Stats) => {
    if (!this.path || !cur.mtimeMs || Math.abs(cur.mtimeMs - this.mtimeMs) <= 1) return;
    this.mtimeMs = cur.mtimeMs;
    this.onChange(this.path, cur.mtimeMs);
  };

  constructor(private readonly onChange: (path: string, mtimeMs: number) => void, private readonly intervalMs = 400) {}

  /** Watches `path` (the file just read or written, at `mtimeMs`: that version is not news). */
  follow(path: string, mtimeMs: number): void {
    this.mtimeMs = mtimeMs;
    if (path === this.path) return;
    this.stop();
    this.path = path;
    watchFile(path, { interval: this.intervalMs, persistent: false }, this.listener);
  }

  stop(): void {
    if (this.path) unwatchFile(this.path, this.listener);
    this.path = undefined;
  }
}
