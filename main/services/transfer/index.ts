// File transfer to appliances: SFTP when offered, SCP over exec otherwise (or when forced).
import { labelOf, type TransferHost } from './host';
import { scpTransfer } from './scp';
import { openSftpTransfer } from './sftp';
import { TransferError, type FileTransfer, type ReadOptions, type TransferMode } from './types';

export { scpTransfer, scpGet, scpPut } from './scp';
export { sftpTransfer } from './sftp';
export { probeShell } from './remote-posix';
export type { TransferHost } from './host';
export * from './types';

/**
 * `sftp` and `scp` as asked; `auto` uses SFTP and falls back to SCP when the server refuses
 * the SFTP subsystem (vendor appliances: SCP and a CLI, nothing else).
 */
export async function openTransfer(h: TransferHost, mode: TransferMode = 'auto', opts: { timeoutMs?: number } = {}): Promise<FileTransfer> {
  if (mode === 'scp') return scpTransfer(h, opts);
  try {
    return await openSftpTransfer(h, opts);
  } catch (err) {
    if (mode === 'sftp') throw err;
    const closed = 'isClosed' in h ? h.isClosed : false;
    if (closed) throw new TransferError('closed', `${labelOf(h)}: connection lost`);
    return scpTransfer(h, opts);
  }
}


/** The file's bytes, or undefined when it does not exist. */
export async function readIfExists(t: FileTransfer, path: string, opts?: ReadOptions): Promise<Buffer | undefined> {
  try {
    return await t.read(path, opts);
  } catch (err) {
    if (err instanceof TransferError && err.kind === 'not-found') return undefined;
    throw err;
  }
}
