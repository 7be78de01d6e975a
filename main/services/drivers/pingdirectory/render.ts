// The workspace's LDAP tier as a dsconfig batch file (`bin/dsconfig --no-prompt --batch-file FILE`).
import type { Appliance, Workspace } from '../../../../shared/model/schema';
import { withHeader } from '../header';
import { dedupe, type RenderResult } from '../types';
import { formatCommand, KINDS } from './batch';
import { wantOf, type WantObject } from './want';

export function createArgs(o: WantObject): string[][] {
  const args: string[][] = [[KINDS[o.kind], o.name]];
  if (o.type) args.push(['--type', o.type]);
  for (const [p, values] of o.props) for (const v of values) args.push(['--set', `${p}:${v}`]);
  return args;
}

export const policyArgs = (view: string): string[][] => [[KINDS['client-connection-policy'], 'default'], ['--add', `subtree-view:${view}`]];

export function renderPingDirectory(workspace: Workspace, appliance: Appliance): RenderResult {
  const want = wantOf(workspace, appliance);
  const blocks = want.objects.map((o) => formatCommand(`create-${o.kind}`, createArgs(o)));
  for (const v of want.views) blocks.push(formatCommand('set-client-connection-policy-prop', policyArgs(v)));
  const body = `# dsconfig batch file: bin/dsconfig --no-prompt --batch-file FILE (docs/pingdirectory.md)\n\n${blocks.map((b) => `${b}\n`).join('\n')}`;
  return {
    text: withHeader({ workspace: workspace.name, appliance: appliance.name, driver: 'pingdirectory' }, body),
    errors: dedupe(want.errors),
    warnings: dedupe(want.warnings),
  };
}
