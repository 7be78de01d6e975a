// keepalived VRRP for an HA pair (docs/ha.md): one vrrp_instance per instance of the pair, each
// its own section, so a file managed by sections keeps hand-written VRRP blocks as they are.
import type { Appliance, Pair, PairMember, Workspace } from '../../../shared/model/schema';
import { pairOf, planInstances, type PlannedInstance } from '../../../shared/model/pairs';
import { KEEPALIVED_WORD_MAX, shownText } from '../../../shared/model/text-rules';
import { indent, keepalivedSeconds, keepalivedValue } from './format';
import type { DriverProblem } from './types';

export interface VrrpSections {
  sections: string[][];
  /** Lines for global_defs. */
  global: string[];
  errors: DriverProblem[];
}

/** keepalived names: letters, digits, `_` `-` `.` (the pair's name already is one). */
const scriptName = (pair: Pair) => `lbdesk_${pair.name}_check`;
export const instanceName = (pair: Pair, id: number) => `lbdesk_${pair.name}_${id}`;

function block(head: string, body: string[]): string[] {
  return [`${head} {`, ...indent(body), '}'];
}

function trackScript(pair: Pair, errors: DriverProblem[]): string[] {
  const t = pair.trackScript;
  if (!t) return [];
  // A line break would end the script line and start top-level keepalived syntax of its own.
  if (keepalivedValue(t.command) === undefined) {
    errors.push({ subject: `pair ${pair.name}`, message: `trackScript.command ${shownText(t.command)} cannot be written in keepalived.conf (it has a double quote, a brace, a control character or more than ${KEEPALIVED_WORD_MAX} bytes)` });
    return [];
  }
  // Runs as root only where the admin says so: keepalived's own default script user.
  return [
    `# pair ${pair.name}: this box gives its addresses to the mate while the command fails`,
    ...block(`vrrp_script ${scriptName(pair)}`, [
      `script "${t.command}"`,
      `interval ${Math.ceil(t.interval / 1000)}`,
      `fall ${t.fall}`,
      `rise ${t.rise}`,
    ]),
  ];
}

function instance(pair: Pair, me: PairMember, mate: PairMember | undefined, plan: PlannedInstance): string[] {
  const master = plan.master === me.appliance;
  // nopreempt and preempt_delay only work from state BACKUP (keepalived ignores them on MASTER).
  const waits = pair.nopreempt || pair.preemptDelay !== undefined;
  const body = [
    `state ${master && !waits ? 'MASTER' : 'BACKUP'}`,
    `interface ${pair.interface}`,
    `virtual_router_id ${plan.id}`,
    `priority ${master ? pair.priority.master : pair.priority.backup}`,
    `advert_int ${Math.round(pair.advertInterval / 1000)}`,
  ];
  if (pair.nopreempt) body.push('nopreempt');
  else if (pair.preemptDelay !== undefined) body.push(`preempt_delay ${keepalivedSeconds(pair.preemptDelay)}`);
  if (pair.unicast && me.address && mate?.address) {
    body.push(`unicast_src_ip ${me.address}`, ...block('unicast_peer', [mate.address]));
  }
  if (pair.trackInterfaces?.length) body.push(...block('track_interface', pair.trackInterfaces));
  if (pair.trackScript) body.push(...block('track_script', [scriptName(pair)]));
  body.push(...block('virtual_ipaddress', plan.addresses.flatMap((a) => [`# ${a.from}`, a.address])));
  const role = master ? `master here, ${plan.backup} takes over` : `backup here, master ${plan.master}`;
  return [`# pair ${pair.name}, VRRP ${plan.id}: ${role}`, ...block(`vrrp_instance ${instanceName(pair, plan.id)}`, body)];
}

/** The VRRP sections of the pair this appliance is in (as a member or as a member's keepalived). */
export function renderVrrp(workspace: Workspace, appliance: Appliance): VrrpSections {
  const found = pairOf(workspace.pairs, appliance.name);
  if (!found) return { sections: [], global: [], errors: [] };
  const { pair, member } = found;
  const subject = `pair ${pair.name}`;
  if (member.appliance !== appliance.name && member.keepalived !== appliance.name) return { sections: [], global: [], errors: [] };
  const mate = pair.members.find((m) => m !== member);
  const errors: DriverProblem[] = [];
  const sections: string[][] = [];
  const script = trackScript(pair, errors);
  if (script.length) sections.push(script);
  for (const plan of planInstances(pair, workspace.services, workspace.targetSets)) {
    if (plan.addresses.length === 0) {
      // keepalived refuses an instance without addresses to move nothing: say so, render the rest.
      sections.push([`# pair ${pair.name}, VRRP ${plan.id}: no address to carry, not rendered`]);
      continue;
    }
    sections.push(instance(pair, member, mate, plan));
  }
  if (pair.members.length !== 2 || !mate) errors.push({ subject, message: 'a pair has exactly two members' });
  // A track script runs as root (Debian has no keepalived_script user) and only from a path
  // no other user can write: keepalived checks that with script security on.
  const global = pair.trackScript ? ['script_user root', 'enable_script_security'] : [];
  return { sections, global, errors };
}
