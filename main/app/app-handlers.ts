// What the desktop shell adds around the shared handlers, without changing them: the OS's recent
// documents and menu follow every opened or saved workspace, and app.info carries the file the
// app was launched with and the shell's warnings.
import type { Handlers } from '../services/api/dispatch';

export interface AppHandlerHooks {
  /** Called with the path of every workspace read, written or opened as the demo. */
  onOpened(path: string): void;
  /** The workspace the OS asked to open at launch, handed out once. */
  takeLaunchFile(): string | undefined;
  /** Current warnings for the user (e.g. secrets kept for this session only). */
  warnings(): string[];
}

export function withAppHooks(handlers: Partial<Handlers>, hooks: AppHandlerHooks): Partial<Handlers> {
  const out: Partial<Handlers> = { ...handlers };
  const read = handlers['workspace.read'];
  const write = handlers['workspace.write'];
  const demo = handlers['workspace.demo'];
  const info = handlers['app.info'];
  if (read) {
    out['workspace.read'] = async (args) => {
      const result = await read(args);
      hooks.onOpened(result.path);
      return result;
    };
  }
  if (write) {
    out['workspace.write'] = async (args) => {
      const result = await write(args);
      hooks.onOpened(result.path);
      return result;
    };
  }
  if (demo) {
    out['workspace.demo'] = async (args) => {
      const result = await demo(args);
      hooks.onOpened(result.path);
      return result;
    };
  }
  if (info) {
    out['app.info'] = async (args) => {
      const result = await info(args);
      const launch = hooks.takeLaunchFile();
      const warnings = [...(result.warnings ?? []), ...hooks.warnings()];
      return { ...result, ...(launch ? { startPath: launch } : {}), ...(warnings.length ? { warnings } : {}) };
    };
  }
  return out;
}
