// HA pairs: the address plan (who carries what as master) and each rule at its file:line:col.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseWorkspace } from '../../../shared/model/validate';
import { planInstances } from '../../../shared/model/pairs';
import { edit, errorsOf, problemsOf, ROOT, warningsOf, type Obj } from '../../helpers/model';

const FILE = resolve(ROOT, 'test/fixtures/workspaces/pair.yaml');
const text = readFileSync(FILE, 'utf8');
const obj = (): Obj => parse(text) as Obj;
const lineOf = (needle: string, in_ = text) => in_.split('\n').findIndex((l) => `${l}\n`.includes(needle)) + 1;

describe('pairs: the address plan', () => {
  it('the fixture is valid, and each target-set address goes to the instance of its active IPFE', () => {
    const r = parseWorkspace(text, FILE);
    expect(errorsOf(r.problems)).toEqual([]);
    const workspace = r.workspace!;
    const [ipfe, edge] = workspace.pairs;
    expect(planInstances(ipfe!, workspace.services, workspace.targetSets)).toEqual([
      { id: 51, master: 'lvs-a1', backup: 'lvs-a2', addresses: [{ address: '203.0.113.50', from: 'target set 1' }] },
      {
        id: 52, master: 'lvs-a2', backup: 'lvs-a1',
        addresses: [{ address: '203.0.113.150', from: 'target set 1 (secondary)' }, { address: '203.0.113.60', from: 'target set 2' }],
      },
    ]);
    expect(planInstances(edge!, workspace.services, workspace.targetSets)).toEqual([
      { id: 61, master: 'edge1', backup: 'edge2', addresses: [{ address: '192.0.2.10', from: 'service web-vip' }, { address: '192.0.2.11', from: 'service api-vip' }] },
    ]);
  });

  it('moving a target set to A2 moves its address to the other instance', () => {
    const r = parseWorkspace(JSON.stringify(edit(obj(), ['targetSets', 0, 'activeIpfe'], 'A2')), 'x.yaml');
    const plan = planInstances(r.workspace!.pairs[0]!, r.workspace!.services, r.workspace!.targetSets);
    expect(plan[0]!.addresses).toEqual([]);
    expect(plan[1]!.addresses.map((a) => a.address)).toEqual(['203.0.113.50', '203.0.113.150', '203.0.113.60']);
  });
});

describe('pairs: rules', () => {
  const one = (o: Obj, path: string, re: RegExp) => {
    const ps = errorsOf(problemsOf(o)).filter((p) => p.path === path);
    expect(ps.map((p) => p.message).join(' | ')).toMatch(re);
    expect(ps[0]!.line).toBeGreaterThan(0);
    return ps[0]!;
  };

  it('VRRP ids 1-255, unique per interface across pairs', () => {
    one(edit(obj(), ['pairs', 0, 'instances', 0, 'id'], 256), 'pairs[0].instances[0].id', /integer from 1 to 255/);
    one(edit(obj(), ['pairs', 0, 'instances', 0, 'id'], 0), 'pairs[0].instances[0].id', /integer from 1 to 255/);
    const p = one(edit(obj(), ['pairs', 1, 'instances', 0, 'id'], 51), 'pairs[1].instances[0].id', /VRRP id 51 on eth0 is already used by pair ipfe-a instances\[0\]/);
    // Another interface: fine.
    expect(errorsOf(problemsOf(edit(edit(obj(), ['pairs', 1, 'instances', 0, 'id'], 51), ['pairs', 1, 'interface'], 'eth2')))).toEqual([]);
    expect(p.file).toBe('workspace.yaml');
  });

  it('the master priority above the backup', () => {
    one(edit(obj(), ['pairs', 0, 'priority'], { master: 100, backup: 100 }), 'pairs[0].priority.backup', /must be below priority.master \(100\)/);
    one(edit(obj(), ['pairs', 0, 'priority', 'master'], 255), 'pairs[0].priority.master', /1 to 254/);
  });

  it('the mate rule of seed 003: A1 with A2, B1 with B2, each IPFE once', () => {
    one(edit(obj(), ['pairs', 0, 'members', 1, 'ipfe'], 'B2'), 'pairs[0].members[1].ipfe', /B2 is not the mate of A1: A1's mate is A2/);
    one(edit(obj(), ['pairs', 0, 'members', 1, 'ipfe'], undefined), 'pairs[0].members[1].ipfe', /required: the other member names its IPFE/);
    const twice = edit(edit(obj(), ['pairs', 1, 'members', 0, 'ipfe'], 'A1'), ['pairs', 1, 'members', 1, 'ipfe'], 'A2');
    one(twice, 'pairs[1].members[0].ipfe', /IPFE A1 is already lvs-a1 in pair ipfe-a/);
  });

  it('two members, known, each in one pair', () => {
    one(edit(obj(), ['pairs', 0, 'members', 1], undefined), 'pairs[0].members', /exactly two members/);
    one(edit(obj(), ['pairs', 0, 'members', 1, 'appliance'], 'lvs-a3'), 'pairs[0].members[1].appliance', /unknown appliance "lvs-a3" \(did you mean "lvs-a\d"\?\)/);
    one(edit(obj(), ['pairs', 1, 'members', 1, 'appliance'], 'lvs-a1'), 'pairs[1].members[1].appliance', /already a member of pair ipfe-a/);
    one(edit(obj(), ['pairs', 1, 'members', 0, 'keepalived'], 'edge2'), 'pairs[1].members[0].keepalived', /driver haproxy: the VRRP of a pair is rendered by a keepalived appliance/);
  });

  it('unicast needs both own addresses, distinct and of one family', () => {
    one(edit(obj(), ['pairs', 0, 'members', 0, 'address'], undefined), 'pairs[0].members[0].address', /required: the pair uses unicast/);
    one(edit(obj(), ['pairs', 0, 'members', 1, 'address'], '198.51.100.1'), 'pairs[0].members[1].address', /the same address as lvs-a1/);
    one(edit(obj(), ['pairs', 0, 'members', 1, 'address'], '2001:db8::2'), 'pairs[0].members[1].address', /different address families/);
  });

  it('an instance master must be a member; services must exist and be served by both boxes', () => {
    one(edit(obj(), ['pairs', 0, 'instances', 0, 'master'], 'B1'), 'pairs[0].instances[0].master', /"B1" is not a member of pair ipfe-a/);
    one(edit(obj(), ['pairs', 1, 'instances', 0, 'services', 0], 'web-vipp'), 'pairs[1].instances[0].services[0]', /unknown service "web-vipp" \(did you mean "web-vip"\?\)/);
    one(edit(obj(), ['appliances', 4, 'include'], ['web-vip']), 'pairs[1].instances[0].services[1]', /appliance edge2 does not serve api-vip/);
  });

  it('every address carried by one instance, of one family', () => {
    one(edit(obj(), ['pairs', 1, 'instances', 0, 'addresses'], ['203.0.113.50']), 'pairs[1].instances[0]', /203.0.113.50 \(address\) is already carried by pair ipfe-a instance 51/);
    one(edit(obj(), ['pairs', 1, 'instances', 0, 'addresses'], ['2001:db8::10']), 'pairs[1].instances[0].id', /mixes IPv4 and IPv6/);
  });

  it('a target set active on an IPFE of a pair needs an instance of that master and both boxes serving it', () => {
    const noA2 = edit(obj(), ['pairs', 0, 'instances', 1], undefined);
    one(noA2, 'targetSets[1].activeIpfe', /pair ipfe-a has no VRRP instance whose master is A2/);
    one(noA2, 'targetSets[0].secondaryActiveIpfe', /no VRRP instance whose master is A2/);
    one(edit(obj(), ['appliances', 1, 'include'], ['ts1']), 'targetSets[1].activeIpfe', /appliance lvs-a2 \(A2\) does not serve target set 2 .* it is the active IPFE/);
    const onB = text.replace('activeIpfe: A2\n', 'activeIpfe: B1\n');
    const w = warningsOf(parseWorkspace(onB, FILE).problems).find((p) => p.path === 'targetSets[1].activeIpfe');
    expect(w?.message).toMatch(/no pair has IPFE B1: target set 2's address is not carried by any box/);
    expect(w?.line).toBe(lineOf('activeIpfe: A2\n'));
  });

  it('warns where the pair cannot work as written', () => {
    const workspace = edit(edit(obj(), ['pairs', 1, 'members', 0, 'keepalived'], undefined), ['pairs', 1, 'preemptDelay'], '5s');
    const msgs = warningsOf(problemsOf(workspace)).map((p) => `${p.path}: ${p.message}`);
    expect(msgs).toContainEqual(expect.stringMatching(/^pairs\[1\].members\[0\].appliance: nothing renders this box's VRRP/));
    expect(msgs).toContainEqual(expect.stringMatching(/^pairs\[1\].preemptDelay: has no effect with nopreempt/));
    one(edit(obj(), ['pairs', 1, 'trackScript', 'command'], 'pidof "haproxy"'), 'pairs[1].trackScript.command', /double quote/);
  });

  it('a problem is placed at its line in the file', () => {
    const bad = text.replace('{ id: 52, master: A2 }', '{ id: 51, master: A2 }');
    const p = errorsOf(parseWorkspace(bad, FILE).problems).find((x) => x.path === 'pairs[0].instances[1].id')!;
    expect(p.line).toBe(lineOf('{ id: 51, master: A2 }', bad));
    expect(p.col).toBeGreaterThan(1);
  });
});
