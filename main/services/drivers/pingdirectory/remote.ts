// How the proxy host is driven over SSH: `bin/config-diff` prints the configuration as dsconfig
// commands (the before-state), and `bin/dsconfig --no-prompt --batch-file FILE` applies a batch.
// The batch and the bind password reach the box on stdin, into a 0700 temp folder removed when
// the script ends: the password is never in argv, in a file lbdesk keeps, or in a log.
import type { Appliance, DsconfigSettings } from '../../../../shared/model/schema';
import type { BatchApply, BatchResult } from '../types';

const settingsOf = (appliance: Appliance): DsconfigSettings | undefined => appliance.dsconfig;

/** Why this appliance cannot be driven (no `dsconfig:` settings), or undefined. */
function missing(appliance: Appliance): string | undefined {
  return settingsOf(appliance) ? undefined : `appliance ${appliance.name}: driver pingdirectory needs dsconfig.serverRoot (the proxy's server root on the box) and dsconfig.bindSecret (docs/pingdirectory.md)`;
}

// $1 the server root; then the bind options. The first stdin line is the password, the rest
// the batch file. dsconfig's own exit status is the script's.
const APPLY = [
  'umask 077',
  'd=$(mktemp -d) || exit 70',
  'trap \'rm -rf "$d"\' EXIT',
  'IFS= read -r pw || exit 71',
  'printf %s "$pw" > "$d/pw"',
  'pw=',
  'cat > "$d/batch.dsconfig"',
  'root=$1; shift',
  '"$root/bin/dsconfig" --no-prompt "$@" --bindPasswordFile "$d/pw" --batch-file "$d/batch.dsconfig" 2>&1',
].join('\n');

export const pingdirectoryBatch: BatchApply = {
  tool: 'bin/dsconfig --no-prompt --batch-file',
  show(appliance) {
    const why = missing(appliance);
    if (why) return { refused: why };
    return { script: '"$1/bin/config-diff"', args: [settingsOf(appliance)!.serverRoot] };
  },
  apply(appliance) {
    const why = missing(appliance);
    if (why) return { refused: why };
    const s = settingsOf(appliance)!;
    if (!s.bindSecret) return { refused: `appliance ${appliance.name}: dsconfig.bindSecret names no secret: dsconfig needs the bind password of ${s.bindDn}` };
    const args = [s.serverRoot, '--hostname', s.hostname, '--port', String(s.port), ...(s.useSSL ? ['--useSSL'] : []), ...(s.trustAll ? ['--trustAll'] : []), '--bindDN', s.bindDn];
    // Bound to the proxy's LDAP port on the box's host: the state (cn=monitor) binds there with it too.
    return { script: APPLY, args, secret: { name: s.bindSecret, port: s.port } };
  },
  file: (commands) => `# lbdesk push: ${commands.length} dsconfig command${commands.length === 1 ? '' : 's'}\n${commands.map((c) => `${c.replace(/^dsconfig\s+/, '')}\n`).join('')}`,
  result: parseDsconfigOutput,
};

/**
 * dsconfig's batch output, line by line (as Ping's "About the dsconfig tool" page prints a run):
 * each command is echoed (`Executing: SUBCOMMAND -n …`, wrapped when long, then a blank line)
 * as it is taken; an error stops the batch, and the lines after the last echo are its words. A failure before any
 * echo (an argument the whole batch was refused for) names no command: its words do.
 */
export function parseDsconfigOutput(output: string, code: number, commands: string[]): BatchResult {
  const lines = output.split(/\r?\n/);
  const echoed: number[] = [];
  lines.forEach((l, i) => { if (/^Executing:\s/.test(l)) echoed.push(i); });
  if (code === 0) return { taken: commands.length };
  const words = (from: number) => lines.slice(from).map((l) => l.trim()).filter(Boolean).join(' ').slice(0, 500) || `exit status ${code}`;
  if (!echoed.length) return { taken: 0, failed: { message: words(0) } };
  const index = Math.min(echoed.length - 1, commands.length - 1);
  // The echo wraps onto more lines when long; a blank line ends it, the tool's words follow.
  let from = echoed[echoed.length - 1]! + 1;
  while (from < lines.length && lines[from]!.trim() !== '') from++;
  return { taken: index, failed: { index, message: words(from) } };
}
