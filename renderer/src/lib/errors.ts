// Every error the UI shows is one sentence: never a stack, never `[object Object]`.
import { ApiError } from '../../../shared/api/contract';

/** Capitalised, ending with a full stop. */
export function sentence(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  if (!t) return '';
  const first = t[0]!.toUpperCase() + t.slice(1);
  return /[.!?]$/.test(first) ? first : `${first}.`;
}

/** What went wrong, in words, for an error thrown by an API call or by our own code. */
export function errorSentence(err: unknown, doing?: string): string {
  const lead = doing ? `Could not ${doing}: ` : '';
  if (err instanceof ApiError) {
    if (err.code === 'unsupported') return sentence(`${lead}${stripStack(err.message)} (this lbdesk does not offer it yet)`);
    return sentence(`${lead}${stripStack(err.message)}`);
  }
  if (err instanceof Error) return sentence(`${lead}${stripStack(err.message)}`);
  return sentence(`${lead}${stripStack(String(err))}`);
}

/** Only the first line of a message: stack frames are for logs, not for people. */
function stripStack(message: string): string {
  const line = message.split('\n').find((l) => l.trim() && !/^\s*at\s/.test(l)) ?? 'unknown error';
  return line.replace(/^(Error|TypeError|ApiError):\s*/, '');
}

export function isUnsupported(err: unknown): boolean {
  return err instanceof ApiError && err.code === 'unsupported';
}
