// Edits keep every comment and every untouched byte: the text changes only where the edit is.
import { describe, expect, it } from 'vitest';
import { isMap, isScalar, isSeq, type Document, type Node } from 'yaml';
import { addItem, addItems, createDocument, deleteField, documentToText, removeItem, renameKey, setField, EditError } from '../../../shared/model/document';
import { parseWorkspace } from '../../../shared/model/validate';
import type { PathSegment } from '../../../shared/model/problem';
import { exampleText, rng } from '../../helpers/model';

/** The lines that differ between a and b, after removing the common head and tail. */
function changed(a: string, b: string): { at: number; removed: string[]; added: string[] } {
  const x = a.split('\n');
  const y = b.split('\n');
  let i = 0;
  while (i < x.length && i < y.length && x[i] === y[i]) i++;
  let j = 0;
  while (j < x.length - i && j < y.length - i && x[x.length - 1 - j] === y[y.length - 1 - j]) j++;
  return { at: i + 1, removed: x.slice(i, x.length - j), added: y.slice(i, y.length - j) };
}

function edited(op: (doc: Document) => void, text = exampleText()): { text: string; diff: ReturnType<typeof changed> } {
  const doc = createDocument(text);
  op(doc);
  const out = documentToText(doc);
  return { text: out, diff: changed(text, out) };
}

describe('round trip', () => {
  it('an unedited document is its source, byte for byte', () => {
    const text = exampleText();
    expect(documentToText(parseWorkspace(text, 'x').doc)).toBe(text);
  });

  it('editing one field changes that one line; every comment and other byte survives', () => {
    const { text, diff } = edited((d) => setField(d, ['healthTimers', 'interval'], '20s'));
    expect(diff.removed).toEqual(['  interval: 30s                 # between checks while a server is up           (default 30s)']);
    expect(diff.added).toEqual(['  interval: 20s                 # between checks while a server is up           (default 30s)']);
    expect(text.length).toBe(exampleText().length);
    expect(parseWorkspace(text, 'x').workspace!.healthTimers!.interval).toBe(20_000);
  });

  // [what, edit, removed lines, added lines]
  const table: [string, (d: Document) => void, string[], string[]][] = [
    ['a value inside a flow mapping', (d) => setField(d, ['groups', 0, 'members', 1, 'weight'], 150),
      ['      - { server: web2, port: 8081, weight: 200 }'], ['      - { server: web2, port: 8081, weight: 150 }']],
    ['a double-quoted string stays double-quoted', (d) => setField(d, ['groups', 0, 'healthCheck', 'http', 'expect'], 'READY'),
      ['        expect: "OK"            # must occur within the first 1000 bytes of the returned body'],
      ['        expect: "READY"            # must occur within the first 1000 bytes of the returned body']],
    ['a string that looks like a number is quoted', (d) => setField(d, ['name'], '2024'), ['name: lab-site-a'], ['name: "2024"']],
    ['a string with a comment marker is quoted', (d) => setField(d, ['name'], 'a #b'), ['name: lab-site-a'], ['name: "a #b"']],
    ['a new key in a block mapping goes after its last key', (d) => setField(d, ['servers', 0, 'description'], 'front end'),
      [], ['    description: front end']],
    ['a new key in a flow mapping', (d) => setField(d, ['servers', 1, 'healthTimers', 'timeout'], '2s'),
      ['    healthTimers: { interval: 5s }        # per-server override'], ['    healthTimers: { interval: 5s, timeout: 2s }        # per-server override']],
    ['a missing mapping is created', (d) => setField(d, ['groups', 0, 'healthTimers', 'failAfter'], 3),
      [], ['    healthTimers:', '      failAfter: 3']],
    ['a key is deleted with its line', (d) => deleteField(d, ['servers', 3, 'enabled']),
      ['    enabled: false                         # kept in the config, out of service'], []],
    ['deleting the first key of a list item keeps the item', (d) => deleteField(d, ['services', 1, 'name']),
      ['  - name: ldap-vip', '    address: 127.0.0.10'], ['  - address: 127.0.0.10']],
    ['a key is deleted from a flow mapping', (d) => deleteField(d, ['groups', 2, 'healthTimers', 'failAfter']),
      ['    healthTimers: { interval: 10s, failAfter: 3 }   # per-group override'], ['    healthTimers: { interval: 10s }   # per-group override']],
    ['the last key of a mapping leaves {}', (d) => deleteField(d, ['servers', 1, 'healthTimers', 'interval']),
      ['    healthTimers: { interval: 5s }        # per-server override'], ['    healthTimers: {}        # per-server override']],
    ['a list item in block style', (d) => addItem(d, ['servers'], { name: 'web3', address: '127.0.0.23' }),
      [], ['  - name: web3', '    address: 127.0.0.23']],
    ['a list item follows its flow-style neighbours', (d) => addItem(d, ['groups', 0, 'members'], { server: 'web3', port: 8081 }),
      [], ['      - { server: web3, port: 8081 }']],
    ['an item in a flow list', (d) => addItem(d, ['targetSets', 0, 'ports'], 3869),
      ['    ports: [3868]               # ports the local engine forwards at the TSA'], ['    ports: [3868, 3869]               # ports the local engine forwards at the TSA']],
    ['a list item is removed with its lines', (d) => removeItem(d, ['servers'], 1),
      ['  - name: web2', '    address: 127.0.0.22', '    healthTimers: { interval: 5s }        # per-server override'], []],
    ['an item of a flow list', (d) => removeItem(d, ['appliances', 0, 'include'], 0),
      ['    include: [web-vip, ldap-vip]   # services and target sets this appliance serves (default: all)'],
      ['    include: [ldap-vip]   # services and target sets this appliance serves (default: all)']],
    ['the last item of a block list leaves [] and the key comment', (d) => removeItem(d, ['groups', 2, 'members'], 0),
      ['    members:', '      - { server: dns1, port: 53 }'], ['    members: []']],
    ['a block mapping replaced by another keeps the key line', (d) => setField(d, ['groups', 1, 'healthCheck', 'ldap'], { baseDn: 'cn=x' }),
      ['        baseDn: "cn=monitor"', '        scope: base', '        filter: "(objectClass=*)"'], ['        baseDn: cn=x']],
    ['a key is renamed in place', (d) => renameKey(d, ['healthTimers', 'retryInterval'], 'retry'),
      ['  retryInterval: 10s            # between retries after a failure, and while down (default 10s)'],
      ['  retry: 10s            # between retries after a failure, and while down (default 10s)']],
  ];
  it.each(table)('%s', (_what, op, removed, added) => {
    const { diff } = edited(op);
    expect({ removed: diff.removed, added: diff.added }).toEqual({ removed, added });
  });

  it('edits chain on one document', () => {
    const doc = createDocument(exampleText());
    setField(doc, ['groups', 0, 'members', 0, 'weight'], 10);
    addItem(doc, ['servers'], { name: 'web3', address: '127.0.0.23' });
    addItem(doc, ['groups', 0, 'members'], { server: 'web3', port: 8081, weight: 50 });
    deleteField(doc, ['services', 0, 'idleTimeout']);
    const r = parseWorkspace(documentToText(doc), 'x');
    expect(r.problems).toEqual([]);
    expect(r.workspace!.groups[0]!.members.map((m) => [m.server, m.weight])).toEqual([['web1', 10], ['web2', 200], ['web3', 50]]);
    expect(documentToText(doc)).toContain('# per-server override');
  });
});

describe('text details', () => {
  it('CRLF files stay CRLF', () => {
    const text = 'lbdesk: 1\r\nname: a   # n\r\nservers:\r\n  - name: s\r\n    address: 127.0.0.2\r\n';
    const doc = createDocument(text);
    addItem(doc, ['servers'], { name: 't', address: '127.0.0.3' });
    setField(doc, ['servers', 0, 'enabled'], false);
    const out = documentToText(doc);
    expect(out).toBe('lbdesk: 1\r\nname: a   # n\r\nservers:\r\n  - name: s\r\n    address: 127.0.0.2\r\n    enabled: false\r\n  - name: t\r\n    address: 127.0.0.3\r\n');
  });

  it('a file with a byte-order mark keeps it, and its edits are splices like any other', () => {
    const doc = createDocument('\uFEFFlbdesk: 1\nname: x   # site\nservers: []\n');
    setField(doc, ['description'], 'hello');
    setField(doc, ['name'], 'y');
    expect(documentToText(doc)).toBe('\uFEFFlbdesk: 1\nname: y   # site\ndescription: hello\nservers: []\n');
  });

  it('a file without a final newline', () => {
    const doc = createDocument('lbdesk: 1\nname: a');
    setField(doc, ['description'], 'b');
    expect(documentToText(doc)).toBe('lbdesk: 1\nname: a\ndescription: b\n');
  });

  it('an empty value gets a value', () => {
    const doc = createDocument('lbdesk: 1\nname:\nservers:\n');
    setField(doc, ['name'], 'a');
    setField(doc, ['servers'], [{ name: 's', address: '127.0.0.2' }]);
    expect(documentToText(doc)).toBe('lbdesk: 1\nname: a\nservers:\n  - name: s\n    address: 127.0.0.2\n');
  });

  it('an empty value with a line comment: the value comes in, the comment and every other line stay', () => {
    const base = 'groups:\n  - name: g\n    healthTimers:     # per-group override (to do)\n    members:   # none yet\n    note:   # later\nservers:   # none yet\n\nservices: []\n';
    const doc = createDocument(base);
    setField(doc, ['groups', 0, 'healthTimers', 'interval'], '10s');
    addItem(doc, ['servers'], { name: 'b', address: '192.0.2.1' });
    setField(doc, ['groups', 0, 'note'], 'soon');
    expect(documentToText(doc)).toBe('groups:\n  - name: g\n    healthTimers:     # per-group override (to do)\n      interval: 10s\n    members:   # none yet\n    note:   soon # later\nservers:   # none yet\n  - name: b\n    address: 192.0.2.1\n\nservices: []\n');
  });

  it('the first entries of an empty [] list go one per line, as the example writes members', () => {
    const doc = createDocument('groups:\n  - name: g\n    members: []   # later\n    x: 1\n  - { name: h, members: [] }\n');
    addItem(doc, ['groups', 0, 'members'], { server: 'a', port: 80 });
    addItem(doc, ['groups', 0, 'members'], { server: 'b', port: 80 });
    // Inside a flow mapping it stays flow.
    addItem(doc, ['groups', 1, 'members'], { server: 'c', port: 80 });
    expect(documentToText(doc)).toBe('groups:\n  - name: g\n    members:   # later\n      - { server: a, port: 80 }\n      - { server: b, port: 80 }\n    x: 1\n  - { name: h, members: [{ server: c, port: 80 }] }\n');
  });

  it('a value typed into a new, empty field is written plain; a quoted one stays quoted', () => {
    const doc = createDocument('servers:\n  - { name: a, address: "" }\n  - { name: b, address: "192.0.2.2" }\n');
    setField(doc, ['servers', 0, 'address'], '127.0.10.1');
    setField(doc, ['servers', 1, 'address'], '192.0.2.3');
    expect(documentToText(doc)).toBe('servers:\n  - { name: a, address: 127.0.10.1 }\n  - { name: b, address: "192.0.2.3" }\n');
  });

  it('typed key by key, a value that had to be quoted half-way ("127.0", "second ") ends plain', () => {
    const doc = createDocument('servers:\n  - name: a\n    address: ""\n    description: ""\n');
    for (const k of ['1', '12', '127', '127.', '127.0', '127.0.', '127.0.13.23']) setField(doc, ['servers', 0, 'address'], k);
    for (const k of ['s', 'second', 'second ', 'second b', 'second box']) setField(doc, ['servers', 0, 'description'], k);
    expect(documentToText(doc)).toBe('servers:\n  - name: a\n    address: 127.0.13.23\n    description: second box\n');
  });

  it('a new last entry goes after the comment lines that belong to the entry above', () => {
    const doc = createDocument('appliances:\n  - name: a\n    host: h\n    # configPath: /etc/x.cfg   (belongs to a)\n# about what follows\nother: 1\n');
    addItem(doc, ['appliances'], { name: 'b', host: 'g' });
    expect(documentToText(doc)).toBe('appliances:\n  - name: a\n    host: h\n    # configPath: /etc/x.cfg   (belongs to a)\n  - name: b\n    host: g\n# about what follows\nother: 1\n');
    const map = createDocument('a:\n  x:\n    - 1\n    # more of x later\nb: 2\n');
    setField(map, ['a', 'y'], 2);
    expect(documentToText(map)).toBe('a:\n  x:\n    - 1\n    # more of x later\n  y: 2\nb: 2\n');
  });


  it("a field added later goes to its place in the schema's order, in flow and block mappings", () => {
    const flow = createDocument('groups:\n  - name: web\n    members:\n      - { server: web1, weight: 100 }   # new box\n');
    setField(flow, ['groups', 0, 'members', 0, 'port'], 8081);
    expect(documentToText(flow)).toBe('groups:\n  - name: web\n    members:\n      - { server: web1, port: 8081, weight: 100 }   # new box\n');
    // Block: above the next field and the comment lines that are its own.
    const block = createDocument('services:\n  - name: v\n    address: 127.0.0.10\n    # the web tier\n    group: web\n    enabled: true\n');
    setField(block, ['services', 0, 'port'], 80);
    setField(block, ['services', 0, 'description'], 'front');
    expect(documentToText(block)).toBe('services:\n  - name: v\n    description: front\n    address: 127.0.0.10\n    port: 80\n    # the web tier\n    group: web\n    enabled: true\n');
    // The first field of a `- ` entry stays first (nothing goes between the dash and it); a
    // field the schema does not know, or one that comes last, goes at the end.
    // A flow mapping one entry per line: the new entry gets a line of its own, above weight's comment.
    const lines = createDocument('groups:\n  - name: web\n    members:\n      - {\n          server: web1,\n          # heavier box\n          weight: 100\n        }\n');
    setField(lines, ['groups', 0, 'members', 0, 'port'], 8081);
    expect(documentToText(lines)).toBe('groups:\n  - name: web\n    members:\n      - {\n          server: web1,\n          port: 8081,\n          # heavier box\n          weight: 100\n        }\n');
    const first = createDocument('servers:\n  - address: 127.0.0.1\n');
    setField(first, ['servers', 0, 'name'], 'a');
    setField(first, ['servers', 0, 'zzz'], 1);
    expect(documentToText(first)).toBe('servers:\n  - address: 127.0.0.1\n    name: a\n    zzz: 1\n');
  });
  it('a block scalar is replaced without eating the next line', () => {
    const doc = createDocument('a: |\n  x\n  y\nb: 1\n');
    setField(doc, ['a'], 'z');
    expect(documentToText(doc)).toBe('a: z\nb: 1\n');
  });

  it('single quotes stay single', () => {
    const doc = createDocument("a: 'x'  # c\n");
    setField(doc, ['a'], "it's");
    expect(documentToText(doc)).toBe("a: 'it''s'  # c\n");
  });

  it('keys that need quoting are quoted', () => {
    const doc = createDocument('a: {}\n');
    setField(doc, ['a', 'b: c'], 1);
    expect(createDocument(documentToText(doc)).toJS()).toEqual({ a: { 'b: c': 1 } });
  });

  it('refuses to edit a document with YAML errors, or inside a scalar', () => {
    expect(() => setField(createDocument('a: [1\n'), ['a'], 2)).toThrow(EditError);
    expect(() => setField(createDocument('a: 1\n'), ['a', 'b'], 2)).toThrow(EditError);
    expect(() => removeItem(createDocument('a: [1]\n'), ['a'], 3)).toThrow(EditError);
  });

  it('deleting what is not there is a no-op', () => {
    const doc = createDocument('a: 1 # c\n');
    deleteField(doc, ['b']);
    deleteField(doc, ['x', 'y']);
    expect(documentToText(doc)).toBe('a: 1 # c\n');
  });
});

/** Every scalar leaf of the document with its path. */
function leaves(doc: Document): { path: PathSegment[]; node: Node }[] {
  const out: { path: PathSegment[]; node: Node }[] = [];
  const walk = (node: unknown, path: PathSegment[]) => {
    if (isMap(node)) for (const p of node.items) walk(p.value, [...path, String((p.key as { value: unknown }).value)]);
    else if (isSeq(node)) node.items.forEach((n, i) => walk(n, [...path, i]));
    else if (isScalar(node)) out.push({ path, node });
  };
  walk(doc.contents, []);
  return out;
}

describe('fuzz: many single-field edits', () => {
  const values = ['x', 'two words', '10s', '5', 'true', '', "it's", 'a: b', 'a, b', '#hash', '{x}', '-dash', 42, 0, -3, 1.5, true, false, null, 'ünïcödé', 'line\nbreak', ' pad '];
  it('each changes one line, keeps its comment, and re-parses to exactly the intended data', () => {
    const text = exampleText();
    const all = leaves(createDocument(text));
    const next = rng(20261129);
    for (let i = 0; i < 150; i++) {
      const leaf = all[Math.floor(next() * all.length)]!;
      const value = values[Math.floor(next() * values.length)];
      const doc = createDocument(text);
      setField(doc, leaf.path, value);
      const out = documentToText(doc);
      const again = createDocument(out);
      expect(again.errors).toEqual([]);
      expect(again.getIn(leaf.path)).toEqual(value);
      const diff = changed(text, out);
      if ((leaf.node as { value: unknown }).value === value) continue;
      expect(diff.removed.length, `${leaf.path.join('.')} = ${JSON.stringify(value)}`).toBe(1);
      expect(diff.added.length).toBe(1);
      const comment = / #.*$/.exec(diff.removed[0]!.replace(/"[^"]*"|'[^']*'/g, ''))?.[0];
      if (comment) expect(diff.added[0]!.endsWith(comment)).toBe(true);
    }
  });
});

describe('fuzz: structural edits', () => {
  /** Every list and every mapping entry of the document, by path. */
  function places(doc: Document): { lists: PathSegment[][]; entries: PathSegment[][] } {
    const lists: PathSegment[][] = [];
    const entries: PathSegment[][] = [];
    const walk = (node: unknown, path: PathSegment[]) => {
      if (isMap(node)) {
        for (const p of node.items) {
          const child = [...path, String((p.key as { value: unknown }).value)];
          entries.push(child);
          walk(p.value, child);
        }
      } else if (isSeq(node)) {
        lists.push(path);
        node.items.forEach((n, i) => walk(n, [...path, i]));
      }
    };
    walk(doc.contents, []);
    return { lists, entries };
  }
  const items = [7, 'x', { name: 'n1', address: '127.0.0.9' }, { server: 'web1', port: 81 }, [1, 2], { a: { b: [1, { c: 'd' }] } }];

  it('add, remove and delete anywhere: intended data, untouched lines and comments kept', () => {
    const text = exampleText();
    const { lists, entries } = places(createDocument(text));
    const next = rng(77);
    const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)]!;
    for (let i = 0; i < 120; i++) {
      const doc = createDocument(text);
      const before = doc.toJS() as Record<string, unknown>;
      const kind = Math.floor(next() * 4);
      let path: PathSegment[];
      const clone = structuredClone(before);
      const parentOf = (p: PathSegment[]) => p.slice(0, -1).reduce<Record<PathSegment, unknown>>((o, s) => o[s] as Record<PathSegment, unknown>, clone);
      if (kind === 0) {
        path = pick(lists);
        const value = pick(items);
        addItem(doc, path, value);
        (path.reduce<Record<PathSegment, unknown>>((o, s) => o[s] as Record<PathSegment, unknown>, clone) as unknown as unknown[]).push(value);
      } else if (kind === 1) {
        path = pick(lists);
        const list = path.reduce<Record<PathSegment, unknown>>((o, s) => o[s] as Record<PathSegment, unknown>, clone) as unknown as unknown[];
        const index = Math.floor(next() * list.length);
        removeItem(doc, path, index);
        list.splice(index, 1);
      } else if (kind === 2) {
        path = pick(entries);
        deleteField(doc, path);
        const parent = parentOf(path);
        delete parent[path[path.length - 1]!];
      } else {
        path = pick(entries);
        const value = pick(items);
        setField(doc, path, value);
        parentOf(path)[path[path.length - 1]!] = value;
      }
      const out = documentToText(doc);
      expect(createDocument(out).toJS(), `${kind} ${path.join('.')}`).toEqual(clone);
      // The splice, not the re-spacing fallback, did it: the aligned comments are still aligned.
      if (path[0] !== 'lbdesk') expect(out.split('\n')[18], `${kind} ${path.join('.')}`).toBe(text.split('\n')[18]);
      expect(out.startsWith(text.split('\n').slice(0, 18).join('\n'))).toBe(true);
    }
  });
});

describe('addItems', () => {
  const cases: [string, PathSegment[], unknown[]][] = [
    ['block list', ['servers'], [{ name: 'web3', address: '127.0.0.23' }, { name: 'web4', address: '127.0.0.24', description: 'rack 2' }, { name: 'web5', address: '::1' }]],
    ['flow-style neighbours', ['groups', 0, 'members'], [{ server: 'web3', port: 8081 }, { server: 'web4', weight: 5 }, { server: 'web5' }]],
    ['flow list', ['targetSets', 0, 'ports'], [3869, 3870, 3871]],
  ];
  for (const [what, path, values] of cases) {
    it(`writes what one addItem each writes (${what})`, () => {
      const one = edited((d) => values.forEach((v) => addItem(d, path, v as never)));
      const many = edited((d) => addItems(d, path, values));
      expect(many.text).toBe(one.text);
      expect(many.diff.removed.length).toBeLessThanOrEqual(1);
    });
  }

  it('appends 5,000 servers in one edit and the file stays valid', () => {
    const values = Array.from({ length: 5000 }, (_, i) => ({ name: `p${i}`, address: `127.2.${i >> 8}.${i & 255}` }));
    const { text, diff } = edited((d) => addItems(d, ['servers'], values));
    expect(diff.removed).toEqual([]);
    const r = parseWorkspace(text, 'x');
    expect(r.problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(r.workspace!.servers.slice(-2).map((s) => s.name)).toEqual(['p4998', 'p4999']);
  });

  it('starts a list that was empty or missing', () => {
    const doc = createDocument('lbdesk: 1\nname: x\nservers: []\n');
    addItems(doc, ['servers'], [{ name: 'a', address: '127.0.0.1' }, { name: 'b', address: '127.0.0.2' }]);
    addItems(doc, ['groups'], [{ name: 'g', members: [] }, { name: 'h', members: [] }]);
    expect(parseWorkspace(documentToText(doc), 'x').workspace!.servers.map((s) => s.name)).toEqual(['a', 'b']);
    expect(parseWorkspace(documentToText(doc), 'x').workspace!.groups.map((g) => g.name)).toEqual(['g', 'h']);
  });
});
