// How a vendor CLI looks: prompt, pager, confirmation questions, error lines, comments and
// the lines that change by themselves. Defaults fit ADX-, Px-, Cisco- and Linux-like prompts.
import type { CliSettings } from '../../../shared/model/schema';
import { patternParts, patternProblem } from '../../../shared/model/regex-safety';
import { untrusted } from './pattern-bound';

export interface CliPatterns {
  /** Matched against the unfinished last line of output. */
  prompt: RegExp;
  pager: RegExp;
  /** What a pager wants to show the next page. */
  pagerKey: string;
  confirm: RegExp;
  confirmAnswer: string;
  /** Any output line matching one of these means the command failed. */
  errors: RegExp[];
  /** Lines not sent to the appliance and ignored by diff. */
  comment: RegExp;
}

/** `ADX#`, `ADX(config-rs-web1)#`, `SummitPx1:28 #`, `* SummitPx1:29 #`, `admin@px>`, `user@host:~$ `. */
export const DEFAULT_PROMPT = /^(?:\*\s*)?[\w.@:/~()[\]-]+ ?[#>$] ?$/;
export const DEFAULT_PAGER = /--\s?more\s?--|<-+ ?more ?-+>|-- ?more ?\(.*\) ?--|press any key to continue|\(q\)uit/i;
export const DEFAULT_CONFIRM = /(?:\?|:)\s*[[(]\s*(?:y\/n|yes\/no|y\/n\/q)\s*[\])]\s*:?\s*$|\bconfirm\]?\s*\??\s*$/i;
export const DEFAULT_ERRORS: RegExp[] = [
  /^\s*%\s*(?:error|invalid|incomplete|ambiguous|unknown|unrecognized|bad|cannot|failed)/i,
  /^\s*(?:error|failed|failure)\b\s*[:!-]/i,
  /^\s*invalid (?:input|command|parameter|argument|value)/i,
  /^\s*(?:syntax error|unknown command|command not found|incomplete command)/i,
];
export const DEFAULT_COMMENT = /^\s*[!#]/;

/**
 * Lines of `show running-config` and friends that change on their own: clock and
 * configuration-change stamps, uptime, temperatures, fan speeds and counters.
 */
export const CLI_VOLATILE: RegExp[] = [
  /^.*\b(?:current configuration|last configuration change|configuration last (?:changed|saved)|nvram config last updated|startup-config last (?:updated|saved))\b.*$/i,
  /^.*\b(?:up ?time|system up|has been up)\b.*$/i,
  /^.*\b(?:clock|time|date)\b.*\b\d{1,2}:\d{2}(?::\d{2})?\b.*$/i,
  /^.*\b(?:temp(?:erature)?|inlet|outlet|cpu temp)\b.*?-?\d+(?:\.\d+)?\s*(?:°|deg|C\b|F\b|celsius).*$/i,
  /^.*\b(?:fan(?: \d+)?(?: speed)?)\s*[:=]\s*\d+.*$/i,
  /^.*\b(?:packets?|bytes|octets|hits|counters?|sessions|connections|requests|cpu(?: load| utilization)?|memory used)\s*[:=]\s*\d+.*$/i,
];

/**
 * A pattern from the workspace: JavaScript syntax; a leading `(?i)` makes it case-insensitive.
 * One validation refuses is refused here too; matching it is time-bounded (pattern-bound.ts).
 */
export function compilePattern(source: string): RegExp {
  const why = patternProblem(source);
  if (why) throw new Error(`the pattern ${JSON.stringify(source.slice(0, 80))} ${why}`);
  const { body, flags } = patternParts(source);
  return untrusted(new RegExp(body, flags));
}

export function cliPatterns(settings: Partial<CliSettings> | undefined): CliPatterns {
  return {
    prompt: settings?.prompt ? compilePattern(settings.prompt) : DEFAULT_PROMPT,
    pager: settings?.pager ? compilePattern(settings.pager) : DEFAULT_PAGER,
    pagerKey: ' ',
    confirm: settings?.confirm ? compilePattern(settings.confirm) : DEFAULT_CONFIRM,
    confirmAnswer: settings?.confirmAnswer ?? 'y',
    errors: settings?.errors?.length ? settings.errors.map(compilePattern) : DEFAULT_ERRORS,
    comment: DEFAULT_COMMENT,
  };
}

/** The driver's volatile lines plus the appliance's own. */
export function cliVolatile(settings: Partial<CliSettings> | undefined): RegExp[] {
  return [...CLI_VOLATILE, ...(settings?.volatile ?? []).map(compilePattern)];
}
