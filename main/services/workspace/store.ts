// Workspace files on disk: bounded reading, lossless atomic saving, and `validate` for the CLI.
import { open } from 'node:fs/promises';
import { constants } from 'node:fs';
import { dirname } from 'node:path';
import type { Document } from 'yaml';
import { parseWorkspace, yamlErrorMessage, type ParseOptions, type ParseResult } from '../../../shared/model/validate';
import { createDocument, documentToText } from '../../../shared/model/document';
import { normaliseFactors } from '../../../shared/model/normalise';
import { fastLoad } from '../../../shared/model/fastload';
import type { Problem } from '../../../shared/model/problem';
import { MAX_WORKSPACE_BYTES } from '../../../shared/model/limits';
import { validateText } from './validate-text';
import { normaliseFactorValues } from '../../../shared/model/ipfe';
import { writeFileAtomic } from './atomic';

export type WorkspaceFileErrorCode = 'unreadable' | 'not-a-file' | 'too-large' | 'not-text' | 'not-yaml';

/** An expected failure to read or write a workspace file; the message names the file. */
export class WorkspaceFileError extends Error {
  constructor(message: string, readonly code: WorkspaceFileErrorCode, readonly at?: { line: number; col: number }) {
    super(message);
    this.name = 'WorkspaceFileError';
  }
}

/** Line and column (in characters) of the first byte that is not UTF-8; a real U+FFFD is text. */
export function firstNonUtf8(bytes: Uint8Array): { line: number; col: number; byte: number } {
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  for (let i = text.indexOf('\uFFFD'); i >= 0; i = text.indexOf('\uFFFD', i + 1)) {
    const before = text.slice(0, i);
    const at = Buffer.byteLength(before);
    if (bytes[at] === 0xef && bytes[at + 1] === 0xbf && bytes[at + 2] === 0xbd) continue;
    const line = before.split('\n').length;
    // A byte-order mark is no column.
    const bom = line === 1 && text.charCodeAt(0) === 0xfeff ? 1 : 0;
    return { line, col: i - before.lastIndexOf('\n') - bom, byte: bytes[at]! };
  }
  return { line: 1, col: 1, byte: bytes[0] ?? 0 };
}

export interface LoadedWorkspace extends ParseResult {
  path: string;
  text: string;
  mtimeMs: number;
}

function reason(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  const known: Record<string, string> = {
    ENOENT: 'no such file',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EISDIR: 'is a folder',
    ELOOP: 'too many symbolic links',
    ENOTDIR: 'a part of the path is not a folder',
  };
  return (err.code && known[err.code]) || err.message;
}

const OPEN_FLAGS = constants.O_NONBLOCK === undefined ? 'r' : constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0);

/** Reads at most MAX_WORKSPACE_BYTES of strict UTF-8 text from a regular file. */
export async function readWorkspaceText(path: string): Promise<{ text: string; mtimeMs: number }> {
  let fh;
  try {
    // Non-blocking, so a FIFO (or a device) is opened at once and refused by the check below
    // instead of blocking until a writer appears; for a regular file the flag changes nothing.
    fh = await open(path, OPEN_FLAGS);
  } catch (e) {
    throw new WorkspaceFileError(`cannot read ${path}: ${reason(e)}`, 'unreadable');
  }
  try {
    const info = await fh.stat();
    if (!info.isFile()) throw new WorkspaceFileError(`cannot read ${path}: not a regular file`, 'not-a-file');
    if (info.size > MAX_WORKSPACE_BYTES) {
      throw new WorkspaceFileError(`${path} is larger than ${MAX_WORKSPACE_BYTES / 1024 / 1024} MiB: refused`, 'too-large');
    }
    // Read to the end, not to the size stat gave: a file that grew since (or one whose size says
    // 0, as /proc's do) is read whole, and the limit still holds.
    let buf = Buffer.alloc(Math.min(Math.max(info.size + 1, 64 * 1024), MAX_WORKSPACE_BYTES + 1));
    let got = 0;
    for (;;) {
      if (got === buf.length) {
        if (got > MAX_WORKSPACE_BYTES) throw new WorkspaceFileError(`${path} is larger than ${MAX_WORKSPACE_BYTES / 1024 / 1024} MiB: refused`, 'too-large');
        const bigger = Buffer.alloc(Math.min(buf.length * 2, MAX_WORKSPACE_BYTES + 1));
        buf.copy(bigger, 0, 0, got);
        buf = bigger;
      }
      const { bytesRead } = await fh.read(buf, got, buf.length - got, got);
      if (bytesRead === 0) break;
      got += bytesRead;
    }
    let text: string;
    try {
      // ignoreBOM keeps a byte-order mark in the text, so saving an unchanged file gives it back.
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(buf.subarray(0, got));
    } catch {
      const bad = firstNonUtf8(buf.subarray(0, got));
      const byte = bad.byte.toString(16).toUpperCase().padStart(2, '0');
      throw new WorkspaceFileError(`${path} is not UTF-8 text (byte 0x${byte} at line ${bad.line}, column ${bad.col})`, 'not-text', bad);
    }
    return { text, mtimeMs: info.mtimeMs };
  } catch (e) {
    if (e instanceof WorkspaceFileError) throw e;
    throw new WorkspaceFileError(`cannot read ${path}: ${reason(e)}`, 'unreadable');
  } finally {
    await fh.close();
  }
}

/**
 * Reads and validates a workspace file (size, alias and depth limits; older formats migrated in
 * `doc`). Throws WorkspaceFileError when the file cannot be read as text at all.
 */
export async function loadWorkspaceFile(path: string, opts: ParseOptions = {}): Promise<LoadedWorkspace> {
  const { text, mtimeMs } = await readWorkspaceText(path);
  const parsed = parseWorkspace(text, path, opts);
  return {
    path,
    text,
    mtimeMs,
    get doc(): Document {
      return parsed.doc;
    },
    workspace: parsed.workspace,
    problems: parsed.problems,
    migratedFrom: parsed.migratedFrom,
  };
}

export interface SaveResult {
  /** The file written (the target when `path` is a symbolic link). */
  path: string;
  /** The previous version, when there was one. */
  backupPath?: string;
  /** What was written: `text`, with Fm + Fc normalised. */
  text: string;
  /** One line per normalised target set. */
  normalised: string[];
}

/** True when some target set's Fm + Fc (defaults 50 each) is a valid pair not summing to 100. */
function needsNormalising(data: unknown): boolean {
  const sets = (data as { targetSets?: unknown } | null)?.targetSets;
  if (!Array.isArray(sets)) return false;
  return sets.some((t) => {
    const ll = (t as { leastLoad?: unknown } | null)?.leastLoad;
    if (ll === undefined) return false;
    const { mpsFactor = 50, connectionFactor = 50 } = (ll ?? {}) as { mpsFactor?: unknown; connectionFactor?: unknown };
    return typeof mpsFactor === 'number' && typeof connectionFactor === 'number' && mpsFactor + connectionFactor !== 100 && normaliseFactorValues(mpsFactor, connectionFactor) !== undefined;
  });
}

/**
 * Saves workspace text atomically (temp file + fsync + rename, previous version kept as
 * `<file>.bak`). Text that is not YAML is refused and the file left as it was; text that is
 * YAML but not a valid workspace is saved (work in progress). Fm + Fc are normalised to 100.
 */
export async function saveWorkspaceText(path: string, text: string, opts: { normalise?: boolean; backup?: boolean } = {}): Promise<SaveResult> {
  if (new TextEncoder().encode(text).length > MAX_WORKSPACE_BYTES) {
    throw new WorkspaceFileError(`not saving ${path}: larger than ${MAX_WORKSPACE_BYTES / 1024 / 1024} MiB`, 'too-large');
  }
  let out = text;
  let normalised: string[] = [];
  const fast = fastLoad(text);
  if (!fast.ok || (opts.normalise !== false && needsNormalising(fast.data))) {
    const doc = createDocument(text);
    const first = doc.errors[0];
    if (first) {
      const { line, col } = lineCol(text, first.pos[0]);
      throw new WorkspaceFileError(`not saving ${path}: not valid YAML at line ${line}, column ${col}: ${yamlErrorMessage(first).split('\n')[0]}`, 'not-yaml');
    }
    if (opts.normalise !== false) {
      normalised = normaliseFactors(doc);
      out = documentToText(doc);
    }
  }
  let written;
  try {
    written = await writeFileAtomic(path, out, { backup: opts.backup !== false });
  } catch (err) {
    // The error names the temp file; say it about the file being saved.
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new WorkspaceFileError(`not saving ${path}: the folder ${dirname(path)} does not exist`, 'unreadable');
    if (code === 'EACCES' || code === 'EPERM') throw new WorkspaceFileError(`not saving ${path}: permission denied in ${dirname(path)}`, 'unreadable');
    throw err;
  }
  return { path: written.path, backupPath: written.backupPath, text: out, normalised };
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}

/** The store the API handlers use (main/services/api/workspace.ts WorkspaceStore). */
export const workspaceStore = {
  async save(path: string, text: string): Promise<{ backupPath?: string }> {
    const { backupPath } = await saveWorkspaceText(path, text);
    return { backupPath };
  },
  validateText(text: string, path: string): Promise<Problem[]> {
    return validateText(text, path);
  },
};
