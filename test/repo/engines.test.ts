// Every package the lockfile installs runs on the Node the README supports (20.x): npm ci
// would say EBADENGINE for one that needs a newer Node, and it would fail at run time there.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '../..');
const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; engines?: { node?: string } | string[] }> };
const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines?: { node?: string } };

describe('engines', () => {
  it('the project says which Node it runs on, and this run is on it', () => {
    expect(own.engines?.node).toBeTruthy();
    expect(semver.satisfies(process.version, own.engines!.node!)).toBe(true);
  });

  it('no locked package needs a Node newer than the lowest the project supports', () => {
    const lowest = semver.minVersion(own.engines!.node!)!.version;
    const needNewer = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .flatMap(([path, p]) => {
        const range = Array.isArray(p.engines) ? undefined : p.engines?.node;
        return range && !semver.satisfies(lowest, range) ? [`${path.replace(/^.*node_modules\//, '')}@${p.version} needs node ${range}`] : [];
      });
    expect(needNewer).toEqual([]);
  });
});
