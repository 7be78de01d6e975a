// One way to move whole files to and from an appliance, whatever it offers: SFTP, or SCP
// over exec for vendor boxes that have no SFTP subsystem (and often no shell and no rename).

export type TransferKind = 'sftp' | 'scp';
export type TransferMode = 'auto' | TransferKind;

export interface WriteOptions {
  /** Mode of a new file (default 0644); an existing file keeps its mode and owner where the appliance allows. */
  mode?: number;
  /**
   * auto: write a temp file beside the target and rename it into place when the appliance can
   * rename (SFTP posix-rename or a shell with `mv`), else write the target directly;
   * always: refuse when no atomic replace is possible; never: write the target directly.
   */
  atomic?: 'auto' | 'always' | 'never';
  /** Check the bytes on the appliance after writing (sha256 with a shell, else read back). Default true. */
  verify?: boolean;
  /** Deadline of every wait (idle time, not total time). */
  timeoutMs?: number;
  /** Called as data is sent (bytes so far, total). */
  onProgress?: (sent: number, total: number) => void;
}

export interface WriteResult {
  path: string;
  bytes: number;
  sha256: string;
  /** True when the target was replaced by a rename (never seen half-written). */
  atomic: boolean;
  /** How the written bytes were checked. */
  verified: 'sha256' | 'read-back' | 'size' | 'none';
}

export interface ReadOptions {
  timeoutMs?: number;
  /** Refuse files larger than this (default 64 MiB). */
  maxBytes?: number;
}

export interface FileTransfer {
  readonly kind: TransferKind;
  /** The file's bytes; rejects with kind `not-found` when it does not exist. */
  read(path: string, opts?: ReadOptions): Promise<Buffer>;
  write(path: string, data: Buffer, opts?: WriteOptions): Promise<WriteResult>;
  /** Removes a file (SCP needs a shell for this); missing files are not an error. */
  remove(path: string): Promise<void>;
  /** Whether the appliance runs POSIX shell commands over exec (vendor CLIs do not). */
  hasShell(): Promise<boolean>;
}

export type TransferErrorKind = 'not-found' | 'refused' | 'timeout' | 'closed' | 'protocol' | 'verify' | 'unsupported' | 'too-large';

/** Messages name paths and sizes only, never file contents. */
export class TransferError extends Error {
  constructor(readonly kind: TransferErrorKind, message: string) {
    super(message);
    this.name = 'TransferError';
  }
}

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
