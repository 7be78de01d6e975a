// What a command plan decides before anything is sent, the same for a CLI session (steps.ts)
// and a batch tool (batch.ts): refused with the plan's errors, nothing to change, a dry run, or
// the commands to send, each numbered by its step.
import type { PushOutcome, PushStep, StepStatus } from '../../../../shared/api/sync';
import type { CommandPlan } from '../../drivers/types';

/** `commands`: what would be sent (none when refused); `stop`: the outcome when nothing is sent. */
export interface Gate { commands: { step: number; text: string }[]; stop?: [PushOutcome, string] }

/** `unchanged`: the words for "nothing to send" (what the box's config is called). */
export function gatePlan(p: CommandPlan, emit: (s: PushStep, status: StepStatus, message?: string) => void, dryRun: boolean | undefined, unchanged: string): Gate {
  if (p.errors.length) {
    const why = p.errors.map((e) => `${e.subject}: ${e.message}`).join('; ');
    emit('inspect', 'fail', why);
    return { commands: [], stop: ['refused', `nothing sent: ${why}`] };
  }
  const commands = p.steps.flatMap((s, i) => s.commands.map((text) => ({ step: i, text })));
  emit('inspect', 'ok', `${p.steps.length} change${p.steps.length === 1 ? '' : 's'}, ${commands.length} commands`);
  if (!p.steps.length) return { commands, stop: ['unchanged', `the ${unchanged} already is what the workspace says: nothing sent`] };
  if (dryRun) return { commands, stop: ['would-apply', `dry run: ${commands.length} commands would be sent (${p.steps.map((s) => s.what).join('; ')})`] };
  return { commands };
}
