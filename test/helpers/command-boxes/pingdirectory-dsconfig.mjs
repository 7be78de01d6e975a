// The test proxy host's bin/dsconfig and bin/config-diff (one program, by the name it runs as):
// a strict PingDirectoryProxy dsconfig for the objects lbdesk writes. Subcommands, types and
// properties as the PingDirectoryProxy configuration reference names them
// (developer.pingidentity.com/reference/pingdirectory/…/config-guide/: LDAP External Server,
// Search LDAP Health Check, the Failover / Fewest Operations / Health-Weighted / Single Server
// Load-Balancing Algorithms, Proxying Request Processor, Subtree View, Location, Client
// Connection Policy); anything else is refused. Batch mode as the administration guide says: an
// argument error refuses the whole batch before anything is applied; the commands are then applied
// one by one, each echoed `Executing: …`, and a command the server refuses stops the batch with
// the commands before it applied. The configuration is a JSON file in the server root
// (config/lbdesk-test-config.json); config-diff prints it as dsconfig commands.
import { existsSync, readFileSync, writeFileSync, renameSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import process from 'node:process';

const ROOT = dirname(dirname(process.argv[1]));
const CONFIG = join(ROOT, 'config', 'lbdesk-test-config.json');
const BIND = join(ROOT, 'config', 'lbdesk-test-bind.json');
const REFUSE = join(ROOT, 'config', 'lbdesk-test-refuse');
const LOG = join(ROOT, 'logs', 'lbdesk-test-dsconfig.log');

const LDAP_SERVER = ['description', 'server-host-name', 'server-port', 'location', 'bind-dn', 'password', 'passphrase-provider', 'connection-security', 'authentication-method',
  'health-check', 'health-check-frequency', 'key-manager-provider', 'trust-manager-provider', 'verify-credentials-method', 'health-check-connect-timeout', 'max-connection-age',
  'min-expired-connection-disconnect-interval', 'connect-timeout', 'max-response-size', 'initial-connections', 'max-connections', 'defunct-connection-result-code', 'abandon-on-timeout'];
const SEARCH_CHECK = ['description', 'enabled', 'use-for-all-servers', 'base-dn', 'scope', 'filter', 'maximum-local-available-response-time', 'maximum-nonlocal-available-response-time',
  'minimum-local-degraded-response-time', 'minimum-nonlocal-degraded-response-time', 'maximum-local-degraded-response-time', 'maximum-nonlocal-degraded-response-time',
  'minimum-local-unavailable-response-time', 'minimum-nonlocal-unavailable-response-time', 'allow-no-entries-returned', 'allow-multiple-entries-returned',
  'available-filter', 'degraded-filter', 'unavailable-filter'];
const ALGORITHM = ['description', 'enabled', 'backend-server', 'use-location', 'prefer-degraded-servers-over-failover'];

/** kind -> its name option, its types (each with its properties and which are multi-valued), a create without --type. */
const KINDS = {
  'external-server': { option: '--server-name', label: 'External Server', types: { ldap: { label: 'LDAP External Server', props: LDAP_SERVER, multi: ['health-check'] } } },
  'ldap-health-check': { option: '--check-name', label: 'LDAP Health Check', types: { search: { label: 'Search LDAP Health Check', props: SEARCH_CHECK, multi: [] } } },
  'load-balancing-algorithm': {
    option: '--algorithm-name', label: 'Load-Balancing Algorithm',
    types: Object.fromEntries([['failover', 'Failover'], ['fewest-operations', 'Fewest Operations'], ['health-weighted', 'Health-Weighted'], ['single-server', 'Single Server']]
      .map(([t, l]) => [t, { label: `${l} Load-Balancing Algorithm`, props: ALGORITHM, multi: ['backend-server'] }])),
  },
  'request-processor': { option: '--processor-name', label: 'Request Processor', types: { proxying: { label: 'Proxying Request Processor', props: ['description', 'load-balancing-algorithm', 'transformation'], multi: ['transformation'] } } },
  'subtree-view': { option: '--view-name', label: 'Subtree View', types: { generic: { label: 'Subtree View', props: ['description', 'base-dn', 'request-processor'], multi: [] } }, untyped: true },
  location: { option: '--location-name', label: 'Location', types: { generic: { label: 'Location', props: ['description', 'preferred-failover-location'], multi: ['preferred-failover-location'] } }, untyped: true },
  'client-connection-policy': { option: '--policy-name', label: 'Client Connection Policy', types: { generic: { label: 'Client Connection Policy', props: ['description', 'enabled', 'subtree-view'], multi: ['subtree-view'] } }, untyped: true, noCreate: true },
};
/** Properties that name another object: it must exist when the command is applied. */
const REFS = { 'health-check': 'ldap-health-check', 'backend-server': 'external-server', location: 'location', 'load-balancing-algorithm': 'load-balancing-algorithm', 'request-processor': 'request-processor', 'subtree-view': 'subtree-view' };
const DURATION = /^\d+\s*(ms|s|m|h|milliseconds?|seconds?|minutes?|hours?)$/;
const VALUES = {
  'server-port': (v) => /^\d+$/.test(v) && +v >= 1 && +v <= 65535 ? undefined : 'which has the following syntax: 1 <= INTEGER <= 65535',
  scope: (v) => ['base-object', 'single-level', 'whole-subtree', 'subordinate-subtree'].includes(v) ? undefined : 'which has the following syntax: base-object | single-level | subordinate-subtree | whole-subtree',
  enabled: (v) => ['true', 'false'].includes(v) ? undefined : 'which has the following syntax: BOOLEAN',
  'use-location': (v) => ['true', 'false'].includes(v) ? undefined : 'which has the following syntax: BOOLEAN',
};
for (const p of [...SEARCH_CHECK.filter((x) => x.endsWith('-time')), 'health-check-frequency', 'connect-timeout', 'health-check-connect-timeout', 'max-connection-age']) {
  VALUES[p] = (v) => DURATION.test(v) ? undefined : 'which has the following syntax: DURATION';
}

class Refused extends Error {}

/** Shell-like words of one command line (as a batch file holds it). */
function words(s) {
  const out = []; let cur = ''; let on = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "'") { const e = s.indexOf("'", i + 1); if (e < 0) throw new Refused('Unmatched single quote'); cur += s.slice(i + 1, e); i = e; on = true; }
    else if (c === '"') { let j = i + 1; for (; j < s.length && s[j] !== '"'; j++) { if (s[j] === '\\') j++; cur += s[j]; } if (j >= s.length) throw new Refused('Unmatched double quote'); i = j; on = true; }
    else if (c === '\\' && i + 1 < s.length) { cur += s[++i]; on = true; }
    else if (/\s/.test(c)) { if (on) out.push(cur); cur = ''; on = false; }
    else { cur += c; on = true; }
  }
  if (on) out.push(cur);
  return out;
}

/** One subcommand and its arguments, checked against the reference: { verb, kind, name, type, changes }. */
function parse(argv) {
  const sub = argv[0] ?? '';
  const m = /^(create|set|delete)-(.+?)(-prop)?$/.exec(sub);
  const kind = m && KINDS[m[2]] && (m[1] === 'set') === Boolean(m[3]) ? m[2] : undefined;
  if (!kind) throw new Refused(`The provided subcommand '${sub}' is not a valid dsconfig subcommand`);
  const verb = m[1];
  const k = KINDS[kind];
  if (verb === 'create' && k.noCreate) throw new Refused(`The provided subcommand '${sub}' is not a valid dsconfig subcommand`);
  let name; let type; const changes = [];
  for (let i = 1; i < argv.length; i++) {
    const o = argv[i]; const a = argv[i + 1];
    if (o === k.option && a !== undefined) { name = a; i++; continue; }
    if (o === '--type' && a !== undefined && verb === 'create' && !k.untyped) { type = a; i++; continue; }
    if (/^--(set|add|remove|reset)$/.test(o) && a !== undefined && verb !== 'delete') {
      i++;
      const op = o.slice(2);
      if (op === 'reset') { changes.push({ op, prop: a }); continue; }
      if (verb === 'create' && op !== 'set') throw new Refused(`The argument '${o}' is not allowed with the subcommand '${sub}'`);
      const c = a.indexOf(':');
      if (c <= 0) throw new Refused(`The property value '${a}' does not have the form PROPERTY:VALUE`);
      changes.push({ op, prop: a.slice(0, c), value: a.slice(c + 1) });
      continue;
    }
    throw new Refused(`Argument '${o}' is not allowed with the subcommand '${sub}'`);
  }
  if (name === undefined) throw new Refused(`The argument '${k.option}' is required by the subcommand '${sub}'`);
  if (verb === 'create' && !k.untyped && type === undefined) throw new Refused(`The argument '--type' is required by the subcommand '${sub}'`);
  const t = k.untyped ? 'generic' : type;
  if (t !== undefined && !k.types[t]) throw new Refused(`The value '${type}' is not a valid ${k.label} type: ${Object.keys(k.types).join(', ')}`);
  if (t !== undefined) for (const ch of changes) checkProp(k.types[t], ch);
  return { verb, kind, name, type: k.untyped ? undefined : type, changes };
}

function checkProp(t, ch) {
  if (!t.props.includes(ch.prop)) throw new Refused(`The property '${ch.prop}' is not a recognized property of the ${t.label}`);
  if (ch.op === 'reset') return;
  const bad = VALUES[ch.prop]?.(ch.value);
  if (bad) throw new Refused(`The value '${ch.value}' is not a valid value for the ${t.label} property '${ch.prop}', ${bad}`);
  if ((ch.op === 'add' || ch.op === 'remove') && !t.multi.includes(ch.prop)) throw new Refused(`The property '${ch.prop}' of the ${t.label} is single-valued: use --set`);
}

function load() {
  if (!existsSync(CONFIG)) return { objects: [{ kind: 'client-connection-policy', name: 'default', props: { enabled: ['true'] }, baseline: true }] };
  return JSON.parse(readFileSync(CONFIG, 'utf8'));
}
function save(cfg) {
  writeFileSync(`${CONFIG}.tmp`, `${JSON.stringify(cfg, null, 1)}\n`);
  renameSync(`${CONFIG}.tmp`, CONFIG);
}

/** Applies one parsed command to the configuration, as the server would refuse it. */
function apply(cfg, c, text) {
  const k = KINDS[c.kind];
  const at = cfg.objects.findIndex((o) => o.kind === c.kind && o.name === c.name);
  const refuse = existsSync(REFUSE) ? readFileSync(REFUSE, 'utf8').trim() : '';
  if (refuse && text.includes(refuse)) throw new Refused(`The ${k.label} '${c.name}' could not be ${c.verb === 'set' ? 'modified' : `${c.verb}d`}: the server is unwilling to perform the change`);
  if (c.verb === 'create') {
    if (at >= 0) throw new Refused(`The ${k.types[c.type ?? 'generic'].label} could not be created because there is already an existing one with the same name '${c.name}'`);
    const o = { kind: c.kind, name: c.name, ...(c.type ? { type: c.type } : {}), props: {} };
    change(cfg, o, c.changes);
    cfg.objects.push(o);
    return;
  }
  if (at < 0) throw new Refused(`The ${k.label} '${c.name}' does not exist`);
  const o = cfg.objects[at];
  if (c.verb === 'delete') {
    const users = cfg.objects.filter((u) => Object.entries(u.props).some(([p, vs]) => REFS[p] === c.kind && vs.includes(c.name)));
    if (users.length) throw new Refused(`The ${k.label} '${c.name}' cannot be deleted because it is referenced by ${users.map((u) => `the ${KINDS[u.kind].label} '${u.name}'`).join(', ')}`);
    cfg.objects.splice(at, 1);
    return;
  }
  const t = k.types[k.untyped ? 'generic' : o.type];
  for (const ch of c.changes) checkProp(t, ch);
  change(cfg, o, c.changes);
}

function change(cfg, o, changes) {
  const setHere = new Set();
  for (const ch of changes) {
    const have = o.props[ch.prop] ?? [];
    if (ch.op === 'reset') { delete o.props[ch.prop]; continue; }
    const target = REFS[ch.prop];
    if (target && ch.op !== 'remove' && !cfg.objects.some((x) => x.kind === target && x.name === ch.value)) {
      throw new Refused(`The value '${ch.value}' is not a valid value for the property '${ch.prop}': the ${KINDS[target].label} '${ch.value}' does not exist`);
    }
    if (ch.op === 'set') { o.props[ch.prop] = setHere.has(ch.prop) ? [...have, ch.value] : [ch.value]; setHere.add(ch.prop); }
    else if (ch.op === 'add') { if (!have.includes(ch.value)) o.props[ch.prop] = [...have, ch.value]; }
    else o.props[ch.prop] = have.filter((v) => v !== ch.value);
    if (o.props[ch.prop]?.length === 0) delete o.props[ch.prop];
  }
}

/** Batch file -> commands, with line continuations joined, comments and blank lines skipped. */
function batchCommands(text) {
  const lines = text.split(/\r?\n/); const out = [];
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1; let j = lines[i];
    while (/\\\s*$/.test(j) && i + 1 < lines.length) j = j.replace(/\\\s*$/, ' ') + lines[++i];
    const t = j.trim();
    if (!t || t.startsWith('#')) continue;
    out.push({ line: start, text: t.replace(/^dsconfig\s+/, '') });
  }
  return out;
}

function quote(w) { return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`; }

function configDiff() {
  const cfg = load();
  const out = ['# Configuration changes to bring source (baseline) to target (local server)', ''];
  // Changed baseline objects last: their new values may name the objects created above.
  for (const o of [...cfg.objects.filter((x) => !x.baseline), ...cfg.objects.filter((x) => x.baseline)]) {
    const k = KINDS[o.kind];
    const args = Object.entries(o.props).flatMap(([p, vs]) => vs.map((v) => `--set ${quote(`${p}:${v}`)}`));
    if (o.baseline) {
      const extra = Object.entries(o.props).filter(([p]) => !(p === 'enabled')).flatMap(([p, vs]) => vs.map((v) => `--add ${quote(`${p}:${v}`)}`));
      if (!extra.length) continue;
      out.push([`dsconfig set-${o.kind}-prop`, `${k.option} ${quote(o.name)}`, ...extra].join(' \\\n    '), '');
      continue;
    }
    out.push([`dsconfig create-${o.kind}`, `${k.option} ${quote(o.name)}`, ...(o.type ? [`--type ${o.type}`] : []), ...args].join(' \\\n    '), '');
  }
  process.stdout.write(`${out.join('\n')}`);
}

/** The global options: --no-prompt, --batch-file, and the bind options checked against the running "server". */
function dsconfig(argv) {
  const opts = {}; const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const o = argv[i];
    if (o === '--no-prompt' || o === '-n') opts.noPrompt = true;
    else if (o === '--useSSL' || o === '-Z') opts.useSSL = true;
    else if (o === '--trustAll' || o === '-X') opts.trustAll = true;
    else if (['--batch-file', '-F', '--hostname', '-h', '--port', '-p', '--bindDN', '-D', '--bindPasswordFile', '-j', '--bindPassword', '-w'].includes(o)) {
      if (argv[i + 1] === undefined) throw new Refused(`The argument '${o}' requires a value`);
      opts[o] = argv[++i];
    } else rest.push(o);
  }
  const file = opts['--batch-file'] ?? opts['-F'];
  if (!opts.noPrompt) throw new Refused(file ? 'The --no-prompt option is required with dsconfig in batch mode' : 'lbdesk\'s test host runs non-interactively only: use --no-prompt');
  if (opts['--bindPassword'] || opts['-w']) throw new Refused('lbdesk\'s test host refuses --bindPassword (a password in argv): use --bindPasswordFile');
  bind(opts);
  const cfg = load();
  const commands = file ? batchCommands(readFileSync(file, 'utf8')) : [{ line: 0, text: rest.map(quote).join(' ') }];
  if (file && rest.length) throw new Refused(`Unexpected arguments with --batch-file: ${rest.join(' ')}`);
  // Every command's arguments first: one that is wrong refuses the batch, nothing applied.
  const parsed = [];
  const typeOf = new Map(cfg.objects.map((o) => [`${o.kind}\n${o.name}`, o.type]));
  for (const c of commands) {
    try {
      const p = parse(words(c.text));
      const k = KINDS[p.kind];
      if (p.verb === 'create') typeOf.set(`${p.kind}\n${p.name}`, p.type);
      const t = typeOf.get(`${p.kind}\n${p.name}`);
      if (p.verb === 'set' && !k.untyped && t) for (const ch of p.changes) checkProp(k.types[t], ch);
      parsed.push(p);
    } catch (e) {
      if (!(e instanceof Refused)) throw e;
      if (file) process.stdout.write(`\nBatch file '${file}' contains ${commands.length} commands.\n\nPre-validating with the local server ..... Error\n\n`);
      throw new Refused(`${file ? `Line ${c.line} of the batch file: dsconfig ${c.text}\n` : ''}${e.message}\nNo changes were made to the server`);
    }
  }
  // As the product prints a batch run (Ping's "About the dsconfig tool" page): the count, the
  // pre-validation, then each command echoed with -n after its subcommand, and its outcome.
  if (file) process.stdout.write(`\nBatch file '${file}' contains ${commands.length} commands.\n\nPre-validating with the local server ..... Done\n\n`);
  for (const [i, c] of parsed.entries()) {
    const [sub, ...rest] = words(commands[i].text);
    process.stdout.write(`Executing: ${[sub, '-n', ...rest].map(quote).join(' ')}\n\n`);
    try { apply(cfg, c, commands[i].text); } catch (e) {
      save(cfg);
      throw e;
    }
    save(cfg);
    log(commands[i].text);
    const k = KINDS[c.kind];
    const label = c.verb === 'create' && c.type ? k.types[c.type].label : k.label;
    process.stdout.write(`The ${label} was ${c.verb === 'set' ? 'modified' : `${c.verb}d`} successfully.\n\n`);
  }
}

function bind(opts) {
  if (!existsSync(BIND)) return;
  const want = JSON.parse(readFileSync(BIND, 'utf8'));
  const host = opts['--hostname'] ?? opts['-h'] ?? 'localhost';
  const port = Number(opts['--port'] ?? opts['-p'] ?? 389);
  if (host !== want.hostname || port !== want.port || Boolean(opts.useSSL) !== Boolean(want.useSSL)) {
    throw new Refused(`Unable to connect to the server at ${host} on port ${port}`);
  }
  const dn = opts['--bindDN'] ?? opts['-D'] ?? 'cn=Directory Manager';
  const pwFile = opts['--bindPasswordFile'] ?? opts['-j'];
  const pw = pwFile && existsSync(pwFile) ? readFileSync(pwFile, 'utf8').replace(/\r?\n$/, '') : undefined;
  if (dn !== want.bindDn || pw !== want.password) throw new Refused('The simple bind attempt failed: invalid credentials (result code 49)');
}

function log(text) {
  try { writeFileSync(LOG, `${text}\n`, { flag: 'a' }); } catch { /* no logs folder */ }
}

try {
  if (basename(process.argv[1]).startsWith('config-diff')) configDiff();
  else dsconfig(process.argv.slice(2));
} catch (e) {
  if (!(e instanceof Refused)) throw e;
  process.stdout.write(`${e.message}\n`);
  process.exit(1);
}
