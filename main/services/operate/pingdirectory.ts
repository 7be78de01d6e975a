// PingDirectoryProxy's runtime: each external server's state as the proxy reports it, read from
// its cn=monitor over LDAP (ldapts) at the appliance's host on dsconfig.port, bound as
// dsconfig.bindDn with the dsconfig.bindSecret password. The proxy has no runtime drain: set()
// refuses in one line (drivers/pingdirectory/monitor.ts says why).
import { Client, type Entry } from 'ldapts';
import { selectIncluded } from '../drivers';
import { MONITOR_ATTRIBUTES, MONITOR_BASE, MONITOR_FILTER, memberStates, NO_RUNTIME_SWITCH, parseMonitor } from '../drivers/pingdirectory/monitor';
import { destination } from '../secrets/bound';
import { secretName, secretToSend } from '../secrets/types';
import { hostForUrl } from '../health/probes/util';
import { RuntimeError } from './haproxy';
import type { MemberState, Runtime, RuntimeContext, RuntimeDriver } from './types';

const TIMEOUT_MS = 10_000;

/** ldapts's error in words: its result name (InvalidCredentialsError: Invalid Credentials) and code, the server's diagnostic if any. */
function ldapWords(err: unknown): string {
  const e = err as Error & { code?: number | string };
  const diagnostic = (e.message ?? '').replace(/\s*Code: 0x[0-9a-f]+\s*$/i, '').trim();
  if (typeof e.code !== 'number') return diagnostic || String(err);
  const name = e.name.replace(/Error$/, '').replace(/([a-z])([A-Z])/g, '$1 $2');
  return `${name} (LDAP result ${e.code})${diagnostic ? `: ${diagnostic}` : ''}`;
}

function openPingDirectory(ctx: RuntimeContext, base: string): Runtime {
  const s = ctx.appliance.dsconfig;
  const host = ctx.conn.resolved.hostName;
  const url = () => {
    if (!s) throw new RuntimeError(`appliance ${ctx.appliance.name}: driver pingdirectory needs dsconfig (port, bindDn, bindSecret) to read the proxy's cn=monitor`);
    return `${s.useSSL ? 'ldaps' : 'ldap'}://${hostForUrl(host)}:${s.port}`;
  };
  const services = selectIncluded(ctx.workspace, ctx.appliance).services.map((v) => ({ name: v.name, group: v.group, port: v.port }));
  return {
    via: async () => `${base} over LDAP at ${url()}${s ? ` as ${s.bindDn}` : ''}`,
    async state(members): Promise<MemberState[]> {
      const where = url();
      const secret = s!.bindSecret;
      if (!secret) throw new RuntimeError(`appliance ${ctx.appliance.name}: dsconfig.bindSecret names no secret: reading cn=monitor needs the bind password of ${s!.bindDn}`);
      const password = ctx.secrets ? await secretToSend(ctx.secrets, secretName.named(secret), destination(host, s!.port)) : undefined;
      if (password === undefined) throw new RuntimeError(`appliance ${ctx.appliance.name}: the bind password secret "${secret}" (dsconfig.bindSecret) is not in the secret store`);
      const client = new Client({ url: where, connectTimeout: TIMEOUT_MS, timeout: TIMEOUT_MS, ...(s!.trustAll ? { tlsOptions: { rejectUnauthorized: false } } : {}) });
      let entries: Entry[];
      try {
        await client.bind(s!.bindDn, password);
        entries = (await client.search(base, { scope: 'sub', filter: MONITOR_FILTER, attributes: MONITOR_ATTRIBUTES })).searchEntries;
      } catch (err) {
        throw new RuntimeError(`${where}: reading ${base} failed: ${ldapWords(err)}`);
      } finally {
        await client.unbind().catch(() => undefined);
      }
      return memberStates(members, services, parseMonitor(entries));
    },
    set: async () => ({ ok: false, refused: NO_RUNTIME_SWITCH }),
    // No process to follow across a reload: a push changes the proxy's configuration in place.
    generation: async () => '',
  };
}

/** The runtime reading the monitor entries under `base` (the product's cn=monitor; a test's slapd serves them elsewhere). */
export const pingdirectoryRuntimeAt = (base: string): RuntimeDriver => ({ open: (ctx) => openPingDirectory(ctx, base) });

export const pingdirectoryRuntime = pingdirectoryRuntimeAt(MONITOR_BASE);
