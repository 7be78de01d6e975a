// manage: sections with a pair: lbdesk's vrrp_instance is a marked section of its own; the
// hand-written VRRP of the box (VI_1, its vrrp_script) stays byte for byte, and goes untouched
// when the pair is removed again. Validated by the real keepalived -t where it can run.
import { describe, expect, it } from 'vitest';
import { renderOnto } from '../../../../main/services/drivers/sections';
import { pairSchema } from '../../../../shared/model/schema';
import { corpus, importCase, keepalivedValid, TOOLS } from '../../../helpers/import';

const KA = { file: 'keepalived-pair.conf', driver: 'keepalived' as const };
const ctx = { workspacePath: '/dev/null' };

describe('VRRP of a pair with manage: sections', () => {
  const { text } = corpus(KA);
  const handWritten = (t: string) => t.slice(t.indexOf('vrrp_script chk_ipvs'), t.indexOf('virtual_server_group'));

  it('adds its own vrrp_instance as a marked section; VI_1 is never touched', () => {
    const { workspace } = importCase(KA);
    const box = workspace.appliances[0]!;
    workspace.appliances.push({ ...box, name: 'mate', host: '192.0.2.2' });
    workspace.pairs = [pairSchema.parse({ name: 'p', interface: 'lbd0', members: [{ appliance: box.name }, { appliance: 'mate' }], instances: [{ id: 52, master: box.name, addresses: ['192.0.2.99'] }] })];
    const r = renderOnto(workspace, box, text, ctx, { file: 'keepalived.conf' });
    expect(r.errors).toEqual([]);
    expect(handWritten(r.text)).toBe(handWritten(text));
    expect(r.text).toMatch(/\n# lbdesk: owned, sha256 [0-9a-f]{16}\nvrrp_instance lbdesk_p_52 \{\n {4}state MASTER\n/);
    expect(r.text).toContain('        192.0.2.99\n');
    if (TOOLS.keepalived) expect(keepalivedValid(r.text)).toMatchObject({ code: 0 });
    // Again onto its own result: nothing changes. Without the pair: exactly its block goes.
    expect(renderOnto(workspace, box, r.text, ctx, { file: 'keepalived.conf' }).text).toBe(r.text);
    workspace.pairs = [];
    const gone = renderOnto(workspace, box, r.text, ctx, { file: 'keepalived.conf' });
    expect(gone.errors).toEqual([]);
    expect(gone.text).not.toContain('lbdesk_p_52');
    expect(handWritten(gone.text)).toBe(handWritten(text));
  });

  it('an instance name that is the box\'s own is refused, not overwritten', () => {
    const { workspace } = importCase(KA);
    const box = workspace.appliances[0]!;
    const own = text.replace('vrrp_instance VI_1 {', 'vrrp_instance lbdesk_p_52 {');
    workspace.appliances.push({ ...box, name: 'mate', host: '192.0.2.2' });
    workspace.pairs = [pairSchema.parse({ name: 'p', interface: 'lbd0', members: [{ appliance: box.name }, { appliance: 'mate' }], instances: [{ id: 52, master: box.name, addresses: ['192.0.2.99'] }] })];
    const r = renderOnto(workspace, box, own, ctx, { file: 'keepalived.conf' });
    expect(r.text).toBe('');
    expect(r.errors.map((e) => e.message).join('\n')).toMatch(/vrrp_instance lbdesk_p_52 \(line \d+\) is not lbdesk's/);
  });
});
