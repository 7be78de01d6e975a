// The CLI driver's render: the two example templates pinned by golden files, and every way a
// template can go wrong reported by name and line. UPDATE_GOLDEN=1 rewrites the golden files.
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { workspaceSchema, type Workspace } from '../../../../shared/model/schema';
import { getDriver, renderForAppliance } from '../../../../main/services/drivers';
import { splitSections, commandsOf } from '../../../../main/services/drivers/template/sections';

const UPDATE = process.env.UPDATE_GOLDEN === '1';
const FIXTURES = resolve(__dirname, '../../../fixtures/template');
const SITE = join(FIXTURES, 'site.yaml');

function load(path: string): Workspace {
  return workspaceSchema.parse(parse(readFileSync(path, 'utf8')));
}

function golden(name: string, actual: string): void {
  const file = join(FIXTURES, name);
  if (UPDATE) writeFileSync(file, actual);
  expect(existsSync(file), `${name} missing: run with UPDATE_GOLDEN=1`).toBe(true);
  expect(actual).toBe(readFileSync(file, 'utf8'));
}

describe('example templates rendered from test/fixtures/template/site.yaml', () => {
  const workspace = load(SITE);
  const appliance = (name: string) => workspace.appliances.find((a) => a.name === name)!;

  it('registers driver cli', () => {
    expect(getDriver('cli').name).toBe('cli');
    expect(getDriver('cli').volatile.length).toBeGreaterThan(0);
  });

  it.each([['adx1', 'site.adx1.golden.txt'], ['px1', 'site.px1.golden.txt']])('%s renders as %s', (name, file) => {
    const r = renderForAppliance(workspace, appliance(name), { workspacePath: SITE });
    expect(r.errors).toEqual([]);
    expect(r.text.split('\n')[0]).toMatch(/^[!#] EXAMPLE template/);
    golden(file, r.text);
    // Deterministic: the same input renders the same bytes.
    expect(renderForAppliance(workspace, appliance(name), { workspacePath: SITE }).text).toBe(r.text);
  });

  it('says every warning and refusal, by name', () => {
    const lines: string[] = [];
    for (const a of workspace.appliances) {
      const r = renderForAppliance(workspace, a, { workspacePath: SITE });
      lines.push(`## ${a.name}`);
      for (const e of r.errors) lines.push(`error: ${e.subject}: ${e.message}`);
      for (const w of r.warnings) lines.push(`warning: ${w.subject}: ${w.message}`);
      lines.push('');
    }
    golden('site.problems.txt', lines.join('\n'));
  });

  it('maps the seed terms: the protocol override, the L4/L7 switch, timers with their precedence', () => {
    const adx = renderForAppliance(workspace, appliance('adx1'), { workspacePath: SITE }).text;
    expect(adx).toMatch(/server port 1389\n tcp\n protocol ldap\n/);             // 1389 is not well known: named protocol
    expect(adx).toMatch(/server port 80\n tcp\n l4-check-only\n/);               // 80 is HTTP, layer 4 forced
    expect(adx).toMatch(/server port 8081\n tcp\n url "GET \/status"\n content-match "OK"\n keepalive-interval 10 /); // group 10s beats global 20s
    expect(adx).toMatch(/server real web2 192\.0\.2\.22\n port 8081\n port 8081 keepalive-interval 5\n/); // server 5s beats group
    const px = renderForAppliance(workspace, appliance('px1'), { workspacePath: SITE }).text;
    expect(px).toContain('configure slb global health-check interval 20 retry-interval 5 fail-after 3 restore-after 2 timeout 4');
    expect(px).toContain('configure slb server web2 health-check interval 5 fail-after 2');
  });

  it('splits the rendered text into sections with their line numbers', () => {
    const text = renderForAppliance(workspace, appliance('adx1'), { workspacePath: SITE }).text;
    const s = splitSections(text);
    expect(s.problems).toEqual([]);
    expect(commandsOf(s.lines.prologue).map((l) => l.text)).toEqual(['configure terminal']);
    expect(commandsOf(s.lines.epilogue).map((l) => l.text)).toEqual(['end', 'write memory']);
    const lines = text.split('\n');
    for (const l of [...s.lines.config, ...s.lines.rollback]) expect(lines[l.n - 1]).toBe(l.text);
    expect(s.configText).not.toMatch(/lbdesk:(prologue|epilogue|rollback)/);
    expect(commandsOf(s.lines.rollback)[2]!.text).toBe('no server virtual dns-vip');
  });
});

describe('template problems', () => {
  function renderWith(template: string, cli?: Record<string, unknown>) {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-tpl-'));
    writeFileSync(join(dir, 'box.liquid'), template);
    const workspacePath = join(dir, 'workspace.yaml');
    const workspace = workspaceSchema.parse({
      lbdesk: 1, name: 't',
      servers: [{ name: 's1', address: '192.0.2.1' }],
      groups: [{ name: 'g', members: [{ server: 's1', port: 8080 }] }],
      services: [{ name: 'v', address: '192.0.2.10', port: 80, group: 'g' }],
      appliances: [{ name: 'box', host: '192.0.2.2', driver: 'cli', template: 'box.liquid', ...(cli ? { cli } : {}) }],
    });
    return renderForAppliance(workspace, workspace.appliances[0]!, { workspacePath });
  }

  it('renders a small template with the filters and sections', () => {
    const r = renderWith('{% for v in services %}vs {{ v.name | quote }} {{ v.persistence.timeout | seconds }}\n{% endfor %}! lbdesk:rollback\nno vs\n');
    expect(r.errors).toEqual([]);
    expect(r.text).toBe('vs "v" 300\n! lbdesk:rollback\nno vs\n');
  });

  it('names the line and column of an undefined value', () => {
    const r = renderWith('ok\n{{ services[0].nosuchfield }}\n');
    expect(r.errors).toHaveLength(1);
    expect(r.errors[0]!.message).toMatch(/^template box\.liquid:2:4: services\.0\.nosuchfield is undefined \(a misspelt name/);
    expect(r.text).toBe('');
    // An `if` may test what is not set; a filter that does not exist is an error too.
    expect(renderWith('{% if services[0].nosuchfield %}x{% endif %}y\n').text).toBe('y\n');
    expect(renderWith('{{ services[0].name | nosuch }}\n').errors[0]!.message).toMatch(/^template box\.liquid:1:1: undefined filter: nosuch$/);
  });

  it('reports a syntax error, a missing file, a bad section marker and a missing rollback', () => {
    expect(renderWith('{% if x %}\n').errors[0]!.message).toMatch(/^template box\.liquid:1:1: tag \{% if x %\} not closed$/);
    expect(renderWith('a\n! lbdesk:rolback\nb\n').errors[0]!.message).toMatch(/line 2: unknown section marker "lbdesk:rolback"/);
    expect(renderWith('a\n! lbdesk:rollback\nb\n! lbdesk:rollback\n').errors[0]!.message).toMatch(/line 4: section "rollback" appears twice/);
    const noRollback = renderWith('server x\n');
    expect(noRollback.errors).toEqual([]);
    expect(noRollback.warnings[0]!.message).toMatch(/no rollback commands/);
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-tpl-'));
    const workspace = workspaceSchema.parse({ lbdesk: 1, name: 't', appliances: [{ name: 'box', host: '192.0.2.2', driver: 'cli', template: 'missing.liquid' }] });
    const missing = renderForAppliance(workspace, workspace.appliances[0]!, { workspacePath: join(dir, 'workspace.yaml') });
    expect(missing.errors[0]!.message).toBe('cannot read template missing.liquid (ENOENT)');
    const none = workspaceSchema.parse({ lbdesk: 1, name: 't', appliances: [{ name: 'box', host: '192.0.2.2', driver: 'cli' }] });
    expect(renderForAppliance(none, none.appliances[0]!, { workspacePath: join(dir, 'workspace.yaml') }).errors[0]!.message).toMatch(/^driver cli needs a template/);
  });

  it('a template is code the page cannot reach: no constructor, prototype or getter tricks', () => {
    // Liquid calls no functions, and sees only the data's own properties: every way to a
    // prototype or a constructor ends at an undefined name.
    for (const escape of [
      '{{ services.constructor }}',
      '{{ services["constructor"] }}',
      '{{ "".constructor }}',
      '{{ workspace.__proto__ }}',
      '{% assign k = "__proto__" %}{{ workspace[k] }}',
      '{{ services.first.constructor.name }}',
      '{{ services.map.constructor }}',
      '{{ workspace.hasOwnProperty }}',
      '{{ workspace.__lookupGetter__ }}',
      // A bare name is looked up in scopes whose prototype knows `constructor`.
      '{{ constructor }}',
      '{{ __proto__ }}',
      '{{ hasOwnProperty }}',
      '{{ toString }}',
      // Filters that read a property by name read own properties too.
      '{{ services | where: "constructor" }}',
    ]) {
      const r = renderWith(`${escape}\n`);
      expect(r.errors[0]?.message, escape).toMatch(/^template box\.liquid:1:\d+: \S+ is undefined \(/);
      expect(r.text).toBe('');
    }
    expect(renderWith('{{ services | map: "constructor" | join: "" }}x\n').text).toBe('x\n');
  });

  it('a template reads no other file: no include, render or layout, of any path', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-tpl-'));
    writeFileSync(join(dir, 'part.liquid'), 'PART\n');
    for (const escape of ['{% include "/etc/passwd" %}', '{% render "/etc/hostname" %}', '{% layout "/etc/passwd" %}', `{% include "${join(dir, 'part.liquid')}" %}`, '{% render "box" %}', '{% include "../../../../etc/passwd" %}', '{% assign p = "/etc/passwd" %}{% include p %}']) {
      const r = renderWith(`ok\n${escape}\n`);
      expect(r.errors[0]?.message, escape).toMatch(/^template box\.liquid:2:\d+: (include|render|layout) is not available: a template is one file/);
      expect(r.text).toBe('');
    }
  });

  it('a runaway template is stopped at a bound on output and loop size', () => {
    for (const escape of [
      '{% for i in (1..100000000) %}{% endfor %}',
      // Output, captured or not, counts against the same bound.
      '{% capture s %}0123456789abcdef{% endcapture %}{% for i in (1..40) %}{% capture s %}{{ s }}{{ s }}{% endcapture %}{% endfor %}{{ s.size }}',
      '{% capture s %}{% for i in (1..1000) %}0123456789abcdef{% endfor %}{% endcapture %}{% for i in (1..10000) %}{{ s }}{% endfor %}',
      '{% assign s = "0123456789abcdef" %}{% for i in (1..40) %}{% assign s = s | append: s %}{% endfor %}{{ s.size }}',
    ]) {
      const r = renderWith(`ok\n${escape}\n`);
      expect(r.errors[0]?.message, escape).toMatch(/^template box\.liquid:2:\d+: renders more than \d+ characters or loop steps: a loop runs away$/);
      expect(r.text).toBe('');
    }
    // A large site is far inside the bound.
    expect(renderWith('{% for i in (1..20000) %}server real s{{ i }} 192.0.2.1\n{% endfor %}! lbdesk:rollback\nno x\n').errors).toEqual([]);
  });

  it('reads only a .liquid file as a template, by its real name too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lbdesk-tpl-'));
    writeFileSync(join(dir, 'notes.yaml'), 'a: 1\n');
    symlinkSync('/etc/hostname', join(dir, 'host.liquid'));
    for (const [template, why] of [
      ['/etc/passwd', /^template \/etc\/passwd: a template is a Liquid file ending in \.liquid$/],
      ['notes.yaml', /^template notes\.yaml: a template is a Liquid file ending in \.liquid$/],
      ['host.liquid', /^template host\.liquid: links to \/etc\/hostname, which is not a \.liquid file$/],
    ] as const) {
      const workspace = workspaceSchema.parse({ lbdesk: 1, name: 't', appliances: [{ name: 'box', host: '192.0.2.2', driver: 'cli', template }] });
      const r = renderForAppliance(workspace, workspace.appliances[0]!, { workspacePath: join(dir, 'workspace.yaml') });
      expect(r.errors.map((e) => e.message), template).toEqual([expect.stringMatching(why)]);
      expect(r.text).toBe('');
    }
  });

  it('lets the template refuse or warn by name, and checks upload settings', () => {
    const r = renderWith('{{ "service v" | fail: "cannot do this" -}}\n{{ "group g" | warn: "approximated" -}}\nx\n! lbdesk:rollback\ny\n');
    expect(r.errors).toEqual([{ subject: 'service v', message: 'cannot do this' }]);
    expect(r.warnings).toEqual([{ subject: 'group g', message: 'approximated' }]);
    const upload = renderWith('x\n! lbdesk:rollback\ny\n', { mode: 'upload' });
    expect(upload.errors[0]!.message).toBe('cli.mode upload needs cli.uploadPath (where the config goes on the appliance)');
  });

  it('validates cli patterns in the workspace', () => {
    const bad = workspaceSchema.safeParse({ lbdesk: 1, name: 't', appliances: [{ name: 'b', host: 'h', driver: 'cli', cli: { prompt: '(' } }] });
    expect(bad.success).toBe(false);
    expect(bad.error!.issues[0]!.message).toMatch(/^must be a valid regular expression/);
    const ok = workspaceSchema.parse({ lbdesk: 1, name: 't', appliances: [{ name: 'b', host: 'h', driver: 'cli', cli: { timeout: '2s' } }] });
    expect(ok.appliances[0]!.cli).toMatchObject({ mode: 'shell', confirmAnswer: 'y', pullCommand: 'show running-config', timeout: 2000 });
  });
});
