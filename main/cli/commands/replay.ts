// `lbdesk replay WS --member G/S --history FILE [timers]`: the member's recorded checks (the
// lab's history as JSON, or HAProxy health-check log lines) replayed under other timers beside
// the recorded ones. Exit 0 replayed, 2 usage or a history that cannot be read.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { healthTimersSchema } from '../../../shared/model/schema';
import { formatReplay, replayMember, TraceError, UnknownFailure } from '../../services/whatif';
import { CliError } from '../errors';
import { readWorkspace } from '../workspace';

interface ReplayOptions {
  member: string;
  history: string;
  interval?: string;
  retryInterval?: string;
  failAfter?: string;
  restoreAfter?: string;
  timeout?: string;
  year?: string;
  json?: boolean;
}

const FLAGS = { interval: '--interval', retryInterval: '--retry-interval', failAfter: '--fail-after', restoreAfter: '--restore-after', timeout: '--timeout' } as const;

/** The timers given, checked against the workspace's own ranges. */
function timersFrom(o: ReplayOptions) {
  const raw: Record<string, string | number> = {};
  for (const k of Object.keys(FLAGS) as (keyof typeof FLAGS)[]) {
    const v = o[k];
    if (v === undefined) continue;
    raw[k] = k === 'failAfter' || k === 'restoreAfter' ? (/^\d+$/.test(v) ? Number(v) : v) : v;
  }
  const parsed = healthTimersSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const flag = FLAGS[issue.path[0] as keyof typeof FLAGS];
    throw new CliError(`${flag} ${String(raw[issue.path[0] as string])}: ${issue.message}`, 2);
  }
  return parsed.data;
}

export function register(program: Command): void {
  program
    .command('replay')
    .description("replay a member's recorded checks (the lab's history as JSON, or HAProxy health-check log lines) under other timers: when each state change would have happened and how long it took traffic while failing, beside the recorded timers")
    .argument('<workspace>', 'workspace file')
    .requiredOption('--member <member>', 'GROUP/SERVER[:PORT], or N/ADDRESS for a target-set server')
    .requiredOption('--history <file>', 'the recorded checks: lab history JSON ({"results": [...]}) or an HAProxy log')
    .option('--interval <duration>', 'between checks while up (default: the member\'s own)')
    .option('--retry-interval <duration>', 'between retries after a failure, and while down')
    .option('--fail-after <n>', 'consecutive failures before removal from service')
    .option('--restore-after <n>', 'consecutive passes before return to service')
    .option('--timeout <duration>', 'one probe\'s deadline: a recorded pass slower than this fails')
    .option('--year <yyyy>', 'year of syslog time stamps, which carry none (default: this year, UTC)')
    .option('--json', 'print the replay as JSON')
    .action(async (file: string, o: ReplayOptions) => {
      const timers = timersFrom(o);
      if (o.year !== undefined && !/^\d{4}$/.test(o.year)) throw new CliError(`--year takes a four-digit year, not "${o.year}"`, 2);
      const { workspace } = await readWorkspace(file, { unreadable: 2, invalid: 2 });
      const text = await readFile(o.history, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new CliError(`cannot read ${o.history}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`, 2);
      });
      try {
        const report = replayMember(workspace, { member: o.member, text, file: o.history, timers, year: o.year ? Number(o.year) : new Date().getUTCFullYear() });
        process.stdout.write(o.json ? `${JSON.stringify(report, null, 2)}\n` : formatReplay(report));
      } catch (err) {
        if (err instanceof UnknownFailure) throw new CliError(`--member: ${err.message}`, 2);
        if (err instanceof TraceError) throw new CliError(err.message, 2);
        throw err;
      }
    });
}
