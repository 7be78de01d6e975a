// A service whose address the lab cannot listen on: which one the engine's refusal names, said in
// words, with the program that holds the address when it can be found.
import type { UnboundListener } from '../../../shared/api/contract';
import type { Service, Workspace } from '../../../shared/model/schema';
import { addressHolder } from './holder';

const WHY: [RegExp, string][] = [
  [/EADDRINUSE|address already in use/i, 'the address is already in use by another program'],
  [/EACCES|permission denied/i, 'this user may not listen on that port'],
  [/EADDRNOTAVAIL|cannot assign requested address/i, 'this machine does not have that address'],
];

/** The service the refusal is about, when it is one the lab can leave out (a taken or foreign address). */
export function unbindable(workspace: Workspace, reason: string): { service: Service; why: string } | undefined {
  const why = WHY.find(([re]) => re.test(reason))?.[1];
  if (!why) return undefined;
  const at = (s: Service) => (s.address.includes(':') ? `[${s.address}]:${s.port}` : `${s.address}:${s.port}`);
  const service = workspace.services.find((s) => s.enabled && (reason.includes(`${s.address}:${s.port}`) || reason.includes(at(s))));
  return service ? { service, why } : undefined;
}

export async function describeUnbound(s: Service, why: string): Promise<UnboundListener> {
  const holder = await addressHolder(s.address, s.port, s.protocol).catch(() => undefined);
  return { service: s.name, address: s.address, port: s.port, protocol: s.protocol, why, ...(holder ? { holder } : {}) };
}

/** `service clash cannot listen on 127.0.0.1:80/tcp: the address is already in use by another program (nginx, pid 812)`. */
export function unboundSentence(u: UnboundListener): string {
  return `service ${u.service} cannot listen on ${u.address}:${u.port}/${u.protocol}: ${u.why}${u.holder ? ` (${u.holder.command}, pid ${u.holder.pid})` : ''}`;
}
