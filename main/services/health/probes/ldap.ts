// LDAP (LDAP proxy seed 002): a real search on the configured base, scope and filter, timed,
// optionally after a simple bind whose password comes from the secret store; the first entry
// must exist and, with `ldap.expect`, hold each expected attribute value. The entry's
// administrative alerts count too: a value of unavailable-alert-type fails the check, one of
// degraded-alert-type makes the server degraded (point the check at cn=monitor to follow them).
import { Client, type Entry } from 'ldapts';
import { ldapCheckSchema } from '../../../../shared/model/schema';
import { secretName, secretToSend } from '../../secrets/types';
import { destination, SecretRefusedError } from '../../secrets/bound';
import type { Evidence, ProbeContext, ProbeOutcome } from './types';
import { clip, deadline, fail, fmtMs, hostForUrl, pass, stopwatch, dialOf, portFor } from './util';

/** ldapts names each result code (InvalidCredentialsError): that name in words. */
function resultWords(name: string): string {
  return name.replace(/Error$/, '').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase() || 'error';
}

/** A failure in words, naming the operation (`bind as "DN"`, `search "BASE" (…)`) it ended. */
function describe(err: unknown, operation: string): { reason: string; evidence: Evidence } {
  const e = err as Error & { code?: number | string; syscall?: string };
  if (typeof e?.code === 'number') {
    // ldapts appends " Code: 0x31" to the server's diagnostic message: the words say it better.
    const diagnostic = (e.message ?? '').replace(/\s*Code: 0x[0-9a-f]+\s*$/i, '').trim();
    return { reason: `${operation} failed: ${resultWords(e.name)} (LDAP result ${e.code})${diagnostic ? `: ${clip(diagnostic, 80)}` : ''}`, evidence: { resultCode: e.code } };
  }
  if (typeof e?.code === 'string') return { reason: `${e.syscall ?? 'connect'} ${e.code}`, evidence: { errno: e.code } };
  return { reason: clip(e?.message ?? String(err), 120), evidence: {} };
}

/** Seed 002: the attributes a Directory Server sets on its monitor entry to flag itself. */
const ALERTS = ['unavailable-alert-type', 'degraded-alert-type'];

/** An attribute's values as text (names match case-insensitively). */
function valuesOf(entry: Entry, attr: string): string[] {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attr.toLowerCase());
  const raw = key === undefined ? [] : entry[key];
  return (Array.isArray(raw) ? raw : [raw]).map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
}

export async function ldapProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const cfg = ctx.check.ldap ?? ldapCheckSchema.parse({});
  const port = portFor(ctx, 'ldap');
  const total = stopwatch();
  let password: string | undefined;
  if (cfg.bindDn) {
    if (!cfg.bindSecret) return fail('ldap.bindDn is set but ldap.bindSecret names no secret');
    try {
      password = await secretToSend(ctx.secrets, secretName.named(cfg.bindSecret), destination(ctx.address, port));
    } catch (err) {
      if (err instanceof SecretRefusedError) return fail(err.message);
      throw err;
    }
    if (password === undefined) return fail(`bind password secret "${cfg.bindSecret}" is not in the secret store`);
  }
  // ldapts's own timeouts are a backstop: the probe's deadline below decides, naming the phase.
  const slack = ctx.timeoutMs + 1000;
  const client = new Client({ url: `ldap://${hostForUrl(dialOf(ctx))}:${port}`, connectTimeout: slack, timeout: slack });
  let phase = 'waiting for the search result';
  const searchText = `search ${cfg.baseDn ? `"${clip(cfg.baseDn, 60)}"` : 'of the root DSE'} (${cfg.scope}, ${clip(cfg.filter, 40)})`;
  let operation = searchText;
  const evidence: Evidence = { base: clip(cfg.baseDn || '(root DSE)', 120), scope: cfg.scope, filter: clip(cfg.filter, 120) };
  // ldapts times each operation; this bounds the whole dialogue (bind + search) by the deadline.
  let timer: { clear(): void } | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = deadline(ctx.timeoutMs, () => reject(Object.assign(new Error(`timeout after ${fmtMs(ctx.timeoutMs)} ${phase}`), { timeout: true })));
  });
  try {
    const run = async (): Promise<ProbeOutcome> => {
      if (cfg.bindDn) {
        phase = 'waiting for the bind result';
        operation = `bind as "${clip(cfg.bindDn, 60)}"`;
        await client.bind(cfg.bindDn, password);
        phase = 'waiting for the search result';
        operation = searchText;
        evidence.bindDn = clip(cfg.bindDn, 120);
      }
      const sw = stopwatch();
      const { searchEntries } = await client.search(cfg.baseDn, {
        scope: cfg.scope,
        filter: cfg.filter,
        sizeLimit: 1,
        timeLimit: Math.max(1, Math.ceil(ctx.timeoutMs / 1000)),
        attributes: [...Object.keys(cfg.expect ?? {}), ...ALERTS],
      });
      const ms = sw();
      evidence.searchMs = ms;
      evidence.entries = searchEntries.length;
      const entry = searchEntries[0];
      const where = searchText;
      if (!entry) return fail(`${where} returned no entry`, evidence, ms);
      evidence.dn = clip(entry.dn || '(root DSE)', 120);
      for (const [attr, want] of Object.entries(cfg.expect ?? {})) {
        const values = valuesOf(entry, attr);
        evidence[`attr:${attr}`] = clip(values.join(' | '), 120);
        if (!values.includes(want)) {
          return fail(`${where}: ${attr} is ${values.length ? `"${clip(values.join('", "'), 80)}"` : 'absent'}, expected "${clip(want, 60)}"`, evidence, ms);
        }
      }
      const unavailable = valuesOf(entry, 'unavailable-alert-type');
      if (unavailable.length > 0) {
        evidence['attr:unavailable-alert-type'] = clip(unavailable.join(' | '), 120);
        return fail(`${where}: the server flags itself unavailable (unavailable-alert-type: ${clip(unavailable.join(', '), 80)})`, evidence, ms);
      }
      const matched = cfg.expect ? `, ${Object.keys(cfg.expect).length} expected value(s) present` : '';
      const degraded = valuesOf(entry, 'degraded-alert-type');
      if (degraded.length > 0) {
        evidence['attr:degraded-alert-type'] = clip(degraded.join(' | '), 120);
        const flagged = pass(`${where} returned an entry in ${fmtMs(ms)}${matched}; the server flags itself degraded (degraded-alert-type: ${clip(degraded.join(', '), 80)})`, evidence, ms);
        flagged.degraded = true;
        return flagged;
      }
      return pass(`${where} returned an entry in ${fmtMs(ms)}${matched}`, evidence, ms);
    };
    return await Promise.race([run(), expired]);
  } catch (err) {
    if ((err as { timeout?: boolean }).timeout) return fail((err as Error).message, { ...evidence, timeoutMs: ctx.timeoutMs });
    const { reason, evidence: ev } = describe(err, operation);
    return fail(reason, { ...evidence, ...ev, afterMs: total() });
  } finally {
    timer?.clear();
    // unbind is the polite goodbye; it also closes the socket. Never let it hold the result.
    client.unbind().catch(() => undefined);
  }
}
