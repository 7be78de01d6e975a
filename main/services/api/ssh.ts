// The ssh area: questions an SSH login puts to the user (an unknown host key, a
// keyboard-interactive round such as an OTP) go out as events and come back as calls.
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../../shared/api/contract';
import type { SshOptions } from '../ssh';
import type { AreaHandlers, EventSink } from './dispatch';

/** How long a question waits for its answer before it counts as refused. */
const QUESTION_WAIT_MS = 120_000;

/** Open questions of one kind, each answered once or refused (`unanswered`) after the wait. */
class Questions<T> {
  private readonly open = new Map<string, (answer: T) => void>();
  constructor(private readonly unanswered: T, private readonly gone: string) {}
  ask(send: (id: string) => void): Promise<T> {
    return new Promise<T>((resolve) => {
      const id = randomUUID();
      const done = (answer: T) => {
        clearTimeout(timer);
        this.open.delete(id);
        resolve(answer);
      };
      const timer = setTimeout(() => done(this.unanswered), QUESTION_WAIT_MS);
      this.open.set(id, done);
      send(id);
    });
  }
  answer(id: string, answer: T): void {
    const done = this.open.get(id);
    if (!done) throw new ApiError('not-found', this.gone);
    done(answer);
  }
}

export class SshQuestions {
  private readonly hostKeys = new Questions<boolean>(false, 'that host-key question is no longer open');
  private readonly prompts = new Questions<string[] | undefined>(undefined, 'that login question is no longer open');
  constructor(private readonly emit: EventSink) {}

  /** The SSH options that put the questions to the user. */
  options(): Pick<SshOptions, 'confirmHostKey' | 'confirmChangedHostKey' | 'answerPrompts'> {
    const ask = (p: Parameters<NonNullable<SshOptions['confirmHostKey']>>[0]) =>
      this.hostKeys.ask((id) => this.emit('hostKey.prompt', {
        id, host: p.host, port: p.port, keyType: p.keyType, fingerprint: p.fingerprint, reason: p.reason,
        ...(p.appliance ? { appliance: p.appliance } : {}), ...(p.previous ? { previous: p.previous } : {}),
      }));
    return {
      // Unknown keys are put to the user; so is a changed one, beside the keys it replaces.
      confirmHostKey: ask,
      confirmChangedHostKey: ask,
      // keyboard-interactive rounds beyond the password (OTP): a dialog, answered with ssh.answer.
      answerPrompts: (p) => this.prompts.ask((id) => this.emit('ssh.prompt', { id, ...p })),
    };
  }

  handlers(): AreaHandlers<'ssh'> {
    return {
      'hostKey.answer': async ({ id, accept }) => this.hostKeys.answer(id, accept),
      'ssh.answer': async ({ id, answers }) => this.prompts.answer(id, answers ?? undefined),
    };
  }
}
