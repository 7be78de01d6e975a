// The paste parser's bad input: missing columns, bad addresses and ports, duplicates (in the
// paste and against the workspace), and 10,000 rows; then the dialog adds them as one undo step.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { flushPromises } from '@vue/test-utils';
import { addOps, parseServers } from '../../renderer/src/lib/pasteServers';
import PasteServersDialog from '../../renderer/src/components/dialogs/PasteServersDialog.vue';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { mountWith, storeContext } from '../helpers/renderer/mount';

describe('parseServers', () => {
  it('reads CSV with a header, TSV and semicolons, quoted fields', () => {
    const csv = parseServers('name,address,port,weight,description\nweb3, 127.0.0.23, 8081, 50, "rack 2, left"\nweb4,::1\n');
    expect(csv.errors).toEqual([]);
    expect(csv.rows).toEqual([
      { line: 2, name: 'web3', address: '127.0.0.23', port: 8081, weight: 50, description: 'rack 2, left' },
      { line: 3, name: 'web4', address: '::1' },
    ]);
    expect(parseServers('a\t127.0.0.1\t80\nb\t127.0.0.2').rows.map((r) => r.name)).toEqual(['a', 'b']);
    expect(parseServers('a;127.0.0.1;80').rows[0]).toMatchObject({ name: 'a', port: 80 });
  });

  it('names the line and column of every bad value', () => {
    const r = parseServers(['web1', 'web2,', 'bad name,127.0.0.1', 'web3,300.1.1.1', 'web4,127.0.0.4,0', 'web5,127.0.0.5,80,-1', 'web6,127.0.0.6,http'].join('\n'));
    expect(r.rows.map((x) => x.name)).toEqual(['bad name', 'web3', 'web4', 'web5', 'web6']);
    expect(r.errors.map((e) => `${e.line}:${e.column}`)).toEqual(['1:address', '2:address', '3:name', '4:address', '5:port', '6:weight', '7:port']);
    expect(r.errors[0]!.message).toBe('needs at least a name and an address (got 1 column; separate them with ",")');
    expect(r.errors[3]!.message).toBe('"300.1.1.1" is not an IPv4 or IPv6 address');
  });

  it('refuses a name twice in the paste or already in the workspace; warns of an address twice', () => {
    const r = parseServers('web1,127.0.0.1,80\nweb1,127.0.0.2,80\nweb9,127.0.0.1,80', ['web9']);
    expect(r.errors.map((e) => e.message)).toEqual(['"web1" is also on line 1', 'a server named "web9" is already in the workspace']);
    expect(r.warnings.map((w) => `${w.line}: ${w.message}`)).toEqual(['3: 127.0.0.1 port 80 is also on line 1']);
  });

  it('reads 10,000 rows, and finds the one bad line among them', () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `s${i},127.0.${(i >> 8) & 255}.${i & 255},8080,${i % 100}`);
    lines[7777] = 's7777,127.0.0.x,8080';
    const r = parseServers(lines.join('\n'));
    expect(r.rows).toHaveLength(10_000);
    expect(r.errors).toEqual([{ line: 7778, column: 'address', message: '"127.0.0.x" is not an IPv4 or IPv6 address' }]);
    // Two list edits, not 20,000: the document worker appends each list in one go.
    const ops = addOps(r.rows, 0);
    expect(ops.map((o) => [o.list.join('.'), o.items.length])).toEqual([['servers', 10_000], ['groups.0.members', 10_000]]);
  });
});

describe('PasteServersDialog', () => {
  let real: RealApi;
  beforeEach(() => {
    real = realApi();
  });
  afterEach(async () => {
    await real.close();
  });

  it('previews, refuses while there are errors, then adds servers and members as one undo step', async () => {
    const pinia = storeContext(real.api);
    const workspaceStore = useWorkspace();
    await workspaceStore.openDemo();
    const servers = (workspaceStore.raw.servers as unknown[]).length;
    const members = ((workspaceStore.raw.groups as { members: unknown[] }[])[0]!.members).length;
    const w = mountWith(PasteServersDialog, real.api, pinia, { group: 0 });
    const area = w.get('[data-testid="paste-text"]');
    await area.setValue('web7,127.0.0.27,8081,30\nweb8,not-an-ip');
    await vi.waitFor(() => expect(w.find('[data-testid="paste-preview"]').exists()).toBe(true), { timeout: 2000, interval: 10 });
    expect(w.get('[data-testid="paste-issues"]').text()).toContain('line 2, address: "not-an-ip" is not an IPv4 or IPv6 address');
    expect(w.get('[data-testid="paste-add"]').attributes('disabled')).toBeDefined();
    await area.setValue('web7,127.0.0.27,8081,30\nweb8,127.0.0.28,8081');
    await vi.waitFor(() => expect(w.find('[data-testid="paste-issues"]').exists()).toBe(false), { timeout: 2000, interval: 10 });
    await flushPromises();
    expect(w.get('[data-testid="paste-add"]').text()).toBe('Add 2 servers');
    await w.get('[data-testid="paste-add"]').trigger('click');
    expect((workspaceStore.raw.servers as unknown[]).length).toBe(servers + 2);
    expect((workspaceStore.raw.groups as { members: unknown[] }[])[0]!.members.at(-1)).toEqual({ server: 'web8', port: 8081 });
    expect((workspaceStore.raw.groups as { members: unknown[] }[])[0]!.members.at(-2)).toEqual({ server: 'web7', port: 8081, weight: 30 });
    await workspaceStore.settle();
    expect(workspaceStore.undoLabel).toBe('add 2 servers to group web');
    // Open or New right after Ctrl+Z asks "unsaved?" only once settled: the undo is waited for.
    void workspaceStore.undo();
    await workspaceStore.settle();
    expect(workspaceStore.dirty).toBe(false);
    expect((workspaceStore.raw.servers as unknown[]).length).toBe(servers);
    expect((workspaceStore.raw.groups as { members: unknown[] }[])[0]!.members).toHaveLength(members);
    w.unmount();
  });

  it('holds a 10,000-line paste out of the text box, previews it at once, and can edit it as text', async () => {
    const pinia = storeContext(real.api);
    const workspaceStore = useWorkspace();
    await workspaceStore.openDemo();
    const w = mountWith(PasteServersDialog, real.api, pinia, {});
    const lines = Array.from({ length: 10_000 }, (_, i) => `big${i},127.4.${i >> 8}.${i & 255},8081`);
    lines[4] = 'big4,127.4.0.300';
    await w.get('[data-testid="paste-text"]').setValue(lines.join('\n'));
    await flushPromises();
    expect(w.get('[data-testid="paste-held"]').text()).toContain('10000 lines pasted');
    expect((w.get('[data-testid="paste-text"]').element as HTMLTextAreaElement).value).toBe('');
    expect(w.get('[data-testid="paste-preview"]').text()).toContain('10000 servers read');
    expect(w.get('[data-testid="paste-issues"]').text()).toContain('line 5, address: "127.4.0.300" is not an IPv4 or IPv6 address');
    await w.findAll('[data-testid="paste-held"] button')[0]!.trigger('click');
    await flushPromises();
    expect(w.find('[data-testid="paste-held"]').exists()).toBe(false);
    expect((w.get('[data-testid="paste-text"]').element as HTMLTextAreaElement).value.split('\n')).toHaveLength(10_000);
    w.unmount();
  });
});
