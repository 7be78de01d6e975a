// Typed paths in the file dialogs, and what part of a workspace the lab runs.
import { describe, expect, it } from 'vitest';
import { normalise, recentFolders, resolvePath, withYaml } from '../../renderer/src/lib/paths';
import { labPart } from '../../renderer/src/lib/labPart';
import { dirName } from '../../renderer/src/lib/format';

describe('resolvePath', () => {
  const dir = '/home/u/.local/share/lbdesk/demo';
  it('takes an absolute path as it is (never glued onto the folder shown)', () => {
    expect(resolvePath('/tmp/x/site-b.yaml', dir, '/home/u')).toBe('/tmp/x/site-b.yaml');
    expect(resolvePath('  /tmp//x/./site-b.yaml ', dir, '/home/u')).toBe('/tmp/x/site-b.yaml');
    expect(resolvePath('C:\\sites\\b.yaml', 'C:\\x', 'C:\\Users\\u')).toBe('C:\\sites\\b.yaml');
  });
  it('takes ~ from the home folder and the rest from the folder shown', () => {
    expect(resolvePath('~/sites/b.yaml', dir, '/home/u')).toBe('/home/u/sites/b.yaml');
    expect(resolvePath('~', dir, '/home/u')).toBe('/home/u');
    expect(resolvePath('b.yaml', dir, '/home/u')).toBe(`${dir}/b.yaml`);
    expect(resolvePath('../other/b.yaml', dir, '/home/u')).toBe('/home/u/.local/share/lbdesk/other/b.yaml');
    expect(normalise('/a/../../b')).toBe('/b');
  });
  it('adds .yaml to a bare name and lists recent folders once each', () => {
    expect(withYaml('/tmp/site')).toBe('/tmp/site.yaml');
    expect(withYaml('/tmp/site.YML')).toBe('/tmp/site.YML');
    expect(recentFolders(['/a/x.yaml', '/b/y.yaml', '/a/z.yaml'], dirName)).toEqual(['/a', '/b']);
  });
});

describe('labPart', () => {
  const raw = {
    lbdesk: 1, name: 'a', description: 'site',
    servers: [{ name: 'web1', address: '127.0.0.21', description: 'rack 1' }],
    appliances: [{ name: 'lb1', host: '192.0.2.1' }],
  };
  it('leaves out the appliances, the name and every description', () => {
    const edited = { ...raw, name: 'b', description: 'x', servers: [{ ...raw.servers[0], description: 'rack 2' }], appliances: [] };
    expect(labPart(edited)).toEqual(labPart(raw));
    expect(labPart({ ...raw, servers: [{ ...raw.servers[0], address: '127.0.0.22' }] })).not.toEqual(labPart(raw));
  });
});
