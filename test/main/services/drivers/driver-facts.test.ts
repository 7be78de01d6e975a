// The shared table of driver facts (shared/model/drivers.ts) that validation and the page read
// agrees with the Driver objects main runs: a capability claimed there is a part present here.
import { describe, expect, it } from 'vitest';
import { getDriver } from '../../../../main/services/drivers';
import { runtimeDriver } from '../../../../main/services/operate';
import { COMMAND_DRIVERS, DRIVERS, FILE_IMPORT_DRIVERS, SECTION_DRIVERS, TEMPLATE_DRIVERS, driverFacts, factsOf } from '../../../../shared/model/drivers';
import { verifyTargets } from '../../../../main/services/sync/appliance';
import { workspace } from '../../../helpers/drivers';

describe('driver facts', () => {
  it.each(DRIVERS)('%s: the shared facts are what its Driver does', (name) => {
    const f = driverFacts(name);
    const d = getDriver(name);
    expect(d.name).toBe(name);
    // The page shows these defaults as placeholders: they are the ones a push uses.
    expect(f.defaults).toEqual(d.defaults);
    expect(f.importer === 'driver').toBe(d.importer !== undefined);
    expect(f.runtime).toBe(runtimeDriver(name) !== undefined);
    // Command-driven: the session takes `cli:` settings (a dialect's commands, or a template typed in).
    expect(f.commandDriven).toBe((d.commands !== undefined && !d.commands.batch) || f.template);
    expect(f.template).toBe(d.commands === undefined && f.commandDriven);
    // Owned objects of a box are changed by commands planned from its running config.
    if (f.sections === 'objects') expect(d.commands).toBeDefined();
    if (f.sections === 'file') expect(d.commands).toBeUndefined();
    expect(f.sections === 'file').toBe(d.onto !== undefined);
  });

  it('the lists messages and help name are derived from the facts, in DRIVERS order', () => {
    expect(COMMAND_DRIVERS).toEqual(['cli', 'adx', 'a10', 'netscaler', 'f5']);
    expect(SECTION_DRIVERS).toEqual(['haproxy', 'keepalived', 'adx', 'a10', 'netscaler', 'f5', 'pingdirectory']);
    expect(FILE_IMPORT_DRIVERS).toEqual(['haproxy', 'keepalived']);
    expect(TEMPLATE_DRIVERS).toEqual(['cli']);
  });

  it('keepalived validates with -e, as its driver runs it (the editor once showed "keepalived -t -f")', () => {
    expect(driverFacts('keepalived').defaults.validateCommand).toBe('keepalived -t -e -f {file}');
  });

  it('a name read from raw text: facts for a driver, undefined for anything else', () => {
    expect(factsOf('cli')?.template).toBe(true);
    expect(factsOf('nginx')).toBeUndefined();
    expect(factsOf('toString')).toBeUndefined();
    expect(factsOf(undefined)).toBeUndefined();
  });

  it('the VIP check after a push follows verifyVip', () => {
    const site = workspace({
      servers: [{ name: 's', address: '192.0.2.1' }],
      groups: [{ name: 'g', members: [{ server: 's', port: 80 }] }],
      services: [{ name: 'web', address: '192.0.2.10', port: 80, group: 'g' }],
      appliances: DRIVERS.map((driver) => ({ name: `box-${driver}`, host: 'h', driver })),
    });
    for (const a of site.appliances) {
      expect(verifyTargets(site, a).length > 0, a.driver).toBe(driverFacts(a.driver).verifyVip);
    }
  });
});
