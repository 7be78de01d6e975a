// Host key verification for one hop: workspace pin, known_hosts, then the user's word.
// Runs inside key exchange, so a refused key ends the connection before any credential is sent.
import type { HostKeyPrompt } from '../../../shared/api/sync';
import { fingerprintOf, keyTypeOf, sameFingerprint } from './fingerprint';
import type { KnownHosts } from './known-hosts';
import { SshError } from './errors';

export interface HostKeyContext {
  /** Name known_hosts is consulted under (HostKeyAlias or HostName). */
  name: string;
  port: number;
  appliance: string;
  jump: boolean;
  /** Workspace `hostKey` pin (target only). */
  pin?: string;
  knownHosts: KnownHosts;
  confirm?: (p: HostKeyPrompt) => Promise<boolean>;
  /** A changed key (known_hosts or the pin) put to the user with the old keys beside it (the window
   * only: the CLI refuses). Yes replaces the known_hosts entry; the caller updates the pin. */
  confirmChanged?: (p: HostKeyPrompt) => Promise<boolean>;
  onRefused?: (p: HostKeyPrompt) => void;
}

export type HostKeyDecision = { ok: true; fingerprint: string; added: boolean } | { ok: false; error: SshError };

/** Decides on a presented key. Never throws; a refusal carries the error to report. */
export async function decideHostKey(key: Buffer, ctx: HostKeyContext): Promise<HostKeyDecision> {
  const fingerprint = fingerprintOf(key);
  const prompt = (reason: HostKeyPrompt['reason'], knownFrom?: string): HostKeyPrompt => ({
    host: ctx.name, port: ctx.port, keyType: keyTypeOf(key), fingerprint, reason, knownFrom, appliance: ctx.appliance, jump: ctx.jump,
  });
  const label = `${ctx.jump ? 'jump host ' : ''}${ctx.name}${ctx.port === 22 ? '' : `:${ctx.port}`}`;
  const refuse = (kind: 'host-key-changed' | 'host-key-revoked' | 'host-key-unknown', p: HostKeyPrompt, message: string): HostKeyDecision => {
    ctx.onRefused?.(p);
    return { ok: false, error: new SshError(kind, message, p) };
  };

  const known = ctx.knownHosts.check(ctx.name, ctx.port, key);
  if (known.status === 'revoked') {
    return refuse('host-key-revoked', prompt('changed', known.from), `host key of ${label} (${fingerprint}) is marked @revoked in ${known.from}; refusing to connect`);
  }
  // A changed key, in known_hosts or against the pin: one question with every old key beside the
  // new one (not two refusals in a row), and one answer that updates both.
  const previous = [
    ...(known.status === 'changed' ? [{ fingerprint: fingerprintOf(known.key), from: known.from }] : []),
    ...(ctx.pin && !sameFingerprint(ctx.pin, fingerprint) ? [{ fingerprint: ctx.pin, from: 'workspace hostKey' }] : []),
  ];
  if (previous.length && ctx.confirmChanged) {
    const ask: HostKeyPrompt = { ...prompt('changed', previous.map((p) => p.from).join(', ')), previous };
    if (await ctx.confirmChanged(ask).catch(() => false)) {
      if (known.status !== 'known') await ctx.knownHosts.replace(ctx.name, ctx.port, key);
      return { ok: true, fingerprint, added: true };
    }
    return refuse('host-key-changed', ask,
      `HOST KEY CHANGED for ${label}: the server offers ${keyTypeOf(key)} ${fingerprint}, not the key in ${previous.map((p) => `${p.from} (${p.fingerprint})`).join(' and ')}; not replaced, refusing to connect`);
  }
  if (known.status === 'changed') {
    return refuse('host-key-changed', prompt('changed', known.from),
      `HOST KEY CHANGED for ${label}: the server offers ${keyTypeOf(key)} ${fingerprint}, which differs from the key in ${known.from}; refusing to connect (possible man-in-the-middle; if the appliance was reinstalled, remove the old entry with ssh-keygen -R)`);
  }
  if (ctx.pin) {
    if (!sameFingerprint(ctx.pin, fingerprint)) {
      return refuse('host-key-changed', prompt('changed', 'workspace hostKey'),
        `HOST KEY CHANGED for ${label}: the server offers ${fingerprint} but the workspace pins ${ctx.pin}; refusing to connect`);
    }
    return { ok: true, fingerprint, added: false };
  }
  if (known.status === 'known') return { ok: true, fingerprint, added: false };

  const ask = prompt('unknown');
  const accepted = ctx.confirm ? await ctx.confirm(ask).catch(() => false) : false;
  if (!accepted) {
    const also = known.otherTypes.length ? ` (known_hosts has a ${known.otherTypes.join(', ')} key for it, not this type)` : '';
    return refuse('host-key-unknown', ask, `unknown host key for ${label}: ${keyTypeOf(key)} ${fingerprint}${also}; not trusted (confirm it, or pass --accept-new)`);
  }
  await ctx.knownHosts.add(ctx.name, ctx.port, key);
  return { ok: true, fingerprint, added: true };
}
