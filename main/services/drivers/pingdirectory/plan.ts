// From the proxy's configuration (a dsconfig batch file or config-diff output) to the workspace's
// LDAP tier, as dsconfig commands: create what is missing, set only the properties that differ,
// add the subtree views to the default policy, and delete the external servers the workspace's
// algorithms no longer use. Each step carries its inverse from the before-state.
import type { Appliance, Workspace } from '../../../../shared/model/schema';
import { dedupe, type CommandPlan, type CommandStep, type DriverProblem } from '../types';
import { KINDS, objectsOf, oneLine, parseBatch, parseDsDuration, type DsObject } from './batch';
import { createArgs, policyArgs } from './render';
import { wantOf, type WantObject } from './want';

const same = (a: string[], b: string[]) => a.length === b.length && a.every((v, i) => {
  const x = parseDsDuration(v);
  const y = parseDsDuration(b[i]!);
  return v === b[i] || (x !== undefined && x === y);
});

export function planPingDirectory(workspace: Workspace, appliance: Appliance, running: string): CommandPlan {
  const before = objectsOf(parseBatch(running));
  const want = wantOf(workspace, appliance);
  const errors: DriverProblem[] = [...want.errors];
  const warnings: DriverProblem[] = [...want.warnings];
  const steps: CommandStep[] = [];
  for (const o of want.objects) {
    const have = before.get(`${o.kind}\n${o.name}`);
    if (!have) { steps.push(create(o)); continue; }
    if (o.type && have.type && o.type !== have.type) {
      errors.push({ subject: `${o.kind} ${o.name}`, message: `is type ${have.type} on the proxy and ${o.type} in the workspace: dsconfig cannot change an object's type; delete it on the proxy or rename the service` });
      continue;
    }
    const s = change(o, have);
    if (s) steps.push(s);
  }
  const policy = [...(before.get('client-connection-policy\ndefault')?.props.get('subtree-view') ?? [])];
  for (const v of want.views) {
    if (policy.includes(v)) continue;
    const rm = [[KINDS['client-connection-policy'], 'default'], ['--remove', `subtree-view:${v}`]];
    steps.push({ what: `add subtree view ${v} to client connection policy default`, commands: [oneLine('set-client-connection-policy-prop', policyArgs(v))], inverse: [oneLine('set-client-connection-policy-prop', rm)] });
  }
  // External servers an algorithm the workspace renders used, and nothing it renders uses now.
  const wanted = new Set(want.objects.filter((o) => o.kind === 'external-server').map((o) => o.name));
  const owned = want.objects.filter((o) => o.kind === 'load-balancing-algorithm').map((o) => before.get(`load-balancing-algorithm\n${o.name}`)).filter((x): x is DsObject => x !== undefined);
  const others = [...before.values()].filter((o) => o.kind === 'load-balancing-algorithm' && !owned.includes(o));
  const gone = new Set(owned.flatMap((a) => a.props.get('backend-server') ?? []).filter((s) => !wanted.has(s) && !others.some((a) => a.props.get('backend-server')?.includes(s))));
  for (const name of gone) {
    const o = before.get(`external-server\n${name}`);
    if (!o) continue;
    steps.push({ what: `delete external server ${name}`, commands: [oneLine('delete-external-server', [[KINDS['external-server'], name]])], inverse: [oneLine('create-external-server', createArgs({ kind: o.kind, name: o.name, type: o.type, props: [...o.props] }))] });
    warnings.push({ subject: `external server ${name}`, message: 'deleted: its inverse re-creates it with the properties the configuration shows (a password set from a file must be set again)' });
  }
  const commands = steps.flatMap((s) => s.commands);
  const after = commands.length ? `${running}${running && !running.endsWith('\n') ? '\n' : ''}${commands.map((c) => `${c}\n`).join('')}` : running;
  return { steps, after, errors: dedupe(errors), warnings: dedupe(warnings) };
}

function create(o: WantObject): CommandStep {
  return {
    what: `create ${o.kind} ${o.name}`,
    commands: [oneLine(`create-${o.kind}`, createArgs(o))],
    inverse: [oneLine(`delete-${o.kind}`, [[KINDS[o.kind], o.name]])],
  };
}

function change(o: WantObject, have: DsObject): CommandStep | undefined {
  const go: string[][] = [];
  const back: string[][] = [];
  const what: string[] = [];
  for (const [p, values] of o.props) {
    const old = have.props.get(p) ?? [];
    if (same(values, old)) continue;
    for (const v of values) go.push(['--set', `${p}:${v}`]);
    if (old.length) for (const v of old) back.push(['--set', `${p}:${v}`]);
    else back.push(['--reset', p]);
    what.push(`${p} ${old.length ? old.join(',') : '(unset)'} -> ${values.join(',')}`);
  }
  if (!go.length) return undefined;
  const name = [KINDS[o.kind], o.name];
  return {
    what: `${o.kind} ${o.name}: ${what.join('; ')}`,
    commands: [oneLine(`set-${o.kind}-prop`, [name, ...go])],
    inverse: [oneLine(`set-${o.kind}-prop`, [name, ...back])],
  };
}
