// A clean quit, even while the lab engine is forwarding: Electron's `before-quit` is held back
// until every shutdown step (save window state, stop services and close their connections,
// flush the log) has finished or run out of time, then the quit goes on. Never exits twice.
export interface ShutdownStep {
  name: string;
  run: () => Promise<void> | void;
  /** Per-step limit; a hung step must not keep the app alive. */
  timeoutMs?: number;
}

export type QuitLog = (level: 'info' | 'warn' | 'error', message: string) => void;

export class QuitSequence {
  private state: 'running' | 'stopping' | 'stopped' = 'running';
  private finished?: Promise<void>;

  constructor(
    private readonly steps: ShutdownStep[],
    private readonly opts: { defaultTimeoutMs?: number; log?: QuitLog } = {},
  ) {}

  get phase(): 'running' | 'stopping' | 'stopped' {
    return this.state;
  }

  /**
   * For `app.on('before-quit', e => { if (!seq.beforeQuit(() => app.quit())) e.preventDefault(); })`.
   * Returns true when the quit may proceed now; otherwise the shutdown runs (once) and `proceed`
   * is called when it is over.
   */
  beforeQuit(proceed: () => void): boolean {
    if (this.state === 'stopped') return true;
    if (this.state === 'running') {
      this.state = 'stopping';
      this.finished = this.runSteps().then(() => {
        this.state = 'stopped';
        proceed();
      });
    }
    return false;
  }

  /** Resolves when the shutdown is over (immediately if it never started). */
  whenDone(): Promise<void> {
    return this.finished ?? Promise.resolve();
  }

  private async runSteps(): Promise<void> {
    const log = this.opts.log ?? (() => undefined);
    for (const step of this.steps) {
      const limit = step.timeoutMs ?? this.opts.defaultTimeoutMs ?? 10_000;
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((done) => {
        timer = setTimeout(() => done('timeout'), limit);
      });
      try {
        const outcome = await Promise.race([Promise.resolve().then(step.run).then(() => 'ok' as const), timeout]);
        if (outcome === 'timeout') log('warn', `quit: ${step.name} did not finish within ${limit} ms; going on`);
      } catch (err) {
        log('error', `quit: ${step.name} failed: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        clearTimeout(timer);
      }
    }
  }
}
