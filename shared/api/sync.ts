// Data shapes of SSH sync (push, confirm, pull, diff, fleet, history) that cross the contract.
// Pure types: the behaviour lives in main/services/sync and main/services/ssh. The one
// vocabulary of a push's outcome and progress: the CLI, the API and the window all speak it.

/** The steps of one push, in order. Steps after `rename` touch the live file. */
export type PushStep =
  | 'render'
  | 'connect'
  | 'lock'
  | 'inspect'
  | 'upload'
  | 'checksum'
  | 'validate'
  | 'backup'
  | 'arm-confirm'
  | 'rename'
  | 'reload'
  | 'verify'
  | 'restore'
  | 'record';

export type StepStatus = 'start' | 'ok' | 'fail' | 'skip';

/** One progress event (`push.progress` as it is): the window lists them, the CLI prints them as lines. */
export interface PushProgress {
  appliance: string;
  step: PushStep;
  status: StepStatus;
  /** Short words about the step: `validate: haproxy -c exited 1`, `upload 1834 bytes`. */
  message?: string;
  /** Epoch ms. */
  at: number;
}

/**
 * How a push ended for one appliance:
 * - `applied`: the new file is live and reloaded (and verified where possible);
 * - `unchanged`: the appliance already runs this config, nothing was touched;
 * - `would-apply`: dry run: uploaded to a temp file and validated, live file untouched;
 * - `refused`: stopped before the live file was replaced — the appliance is unchanged;
 * - `rolled-back`: the new file went live but reload/verify failed; the backup was restored and reloaded;
 * - `failed`: the rollback itself did not complete — the appliance needs a look (reason says what);
 * - `skipped`: a fleet push did not try this appliance (canary failed, failure threshold reached).
 */
export type PushOutcome = 'applied' | 'unchanged' | 'would-apply' | 'refused' | 'rolled-back' | 'failed' | 'skipped';
/** How a rolling push of an HA pair ended (a pair push skips no box: it stops). */
export type PairOutcome = Exclude<PushOutcome, 'skipped'>;

export interface PendingConfirm {
  /** Epoch ms after which the appliance restores the backup by itself. */
  deadline: number;
  /** sha256 (hex) of the pushed file. */
  hash: string;
}

export interface PushReport {
  appliance: string;
  /** `user@host:port` actually dialled. */
  target: string;
  configPath: string;
  outcome: PushOutcome;
  /** Why, in words (always set, also for `applied`). */
  reason: string;
  /** sha256 (hex) of the rendered file pushed, and of the remote file found before. */
  hash: string;
  previousHash?: string;
  /** Commit-confirmed: set when a timer is armed and waiting for `confirm`. */
  pending?: PendingConfirm;
  /** Notes worth showing: warnings, a timer that fired since the last run, an interrupted push. */
  notes: string[];
  steps: PushProgress[];
  durationMs: number;
  /** History entry of the version that went live (or was found remote before the push). */
  historyId?: string;
}

export interface FleetReport {
  reports: PushReport[];
  counts: Record<PushOutcome, number>;
  durationMs: number;
  /** Why the fleet push stopped early, when it did. */
  stopped?: string;
}

/** Asked of the user (UI dialog, or the CLI's --accept-new) before trusting a host key. */
export interface HostKeyPrompt {
  host: string;
  port: number;
  /** `ssh-ed25519`, `ecdsa-sha2-nistp256`, `ssh-rsa` … */
  keyType: string;
  /** OpenSSH style: `SHA256:` + unpadded base64 of the key's sha256. */
  fingerprint: string;
  /** `unknown`: never seen, may be accepted; `changed`: differs from what is known, always refused. */
  reason: 'unknown' | 'changed';
  /** For `changed`: where the known key comes from (`~/.ssh/known_hosts:12`, `workspace hostKey`). */
  knownFrom?: string;
  /** For `changed`, when the user may replace it (the window): every key known before, and where from. */
  previous?: { fingerprint: string; from: string }[];
  /** The appliance this connection serves (a jump host names the appliance behind it). */
  appliance?: string;
  /** True for a ProxyJump hop. */
  jump?: boolean;
}

/** Asked of the user when a secret is missing from the store (key passphrase, appliance password). */
export interface SecretPrompt {
  kind: 'passphrase' | 'password';
  /** The secret store name it would be kept under (see secretName). */
  secret: string;
  /** What to show: `passphrase for /home/me/.ssh/id_ed25519`. */
  prompt: string;
  appliance: string;
}

/**
 * A keyboard-interactive round the user must answer (an OTP, "Verification code:"): shown as
 * it comes, in order. A lone password prompt is answered from the secret store instead.
 */
export interface InteractivePrompt {
  appliance: string;
  /** `user@host:port` asking. */
  host: string;
  /** The server's title and instructions for this round (either may be empty). */
  name: string;
  instructions: string;
  prompts: { prompt: string; echo: boolean }[];
}

export type HistoryKind = 'push' | 'pull' | 'before-push' | 'restore';

export interface HistoryEntry {
  /** `<UTC timestamp>-<first 12 hex of hash>`; names the stored file. */
  id: string;
  appliance: string;
  /** Epoch ms. */
  at: number;
  kind: HistoryKind;
  hash: string;
  bytes: number;
  target: string;
  configPath: string;
  /** The push outcome for `push` / `restore` entries. */
  outcome?: PushOutcome;
  /** Workspace file the version was rendered from, when known. */
  workspace?: string;
  /**
   * A commit-confirmed push: `pending` until lbdesk learns its fate (a confirm, or the
   * appliance's timer found fired); then `confirmed`, or `rolled-back` (outcome too).
   */
  confirm?: 'pending' | 'confirmed' | 'rolled-back';
  /** When that fate was known (epoch ms; the timer's own time for a rollback). */
  settledAt?: number;
}

/** Result of `confirm`. */
export interface ConfirmReport {
  appliance: string;
  /** `confirmed`: timer stopped, new config kept; `none`: nothing pending; `too-late`: the timer already restored. */
  outcome: 'confirmed' | 'none' | 'too-late';
  reason: string;
}

export interface DiffReport {
  appliance: string;
  configPath: string;
  changed: boolean;
  /** Unified diff, remote (`a/`) to rendered (`b/`); empty when unchanged. */
  patch: string;
  /**
   * `latin1` when either side is not UTF-8: each character of `patch` is one byte, so written
   * out as latin1 the patch holds the files' exact bytes (and `patch` applies it).
   */
  encoding?: 'latin1';
  remoteHash?: string;
  hash: string;
  /** `manage: sections`: owned sections edited on the appliance since lbdesk last saw them. */
  conflicts?: string[];
  /** `manage: sections`: why nothing could be rendered onto the appliance's file. */
  refused?: string;
  /** A commit-confirmed push waiting on the appliance (epoch ms deadline). */
  pending?: PendingConfirm;
  /** The appliance's timer restored the previous config: that push was not confirmed in time. */
  rolledBack?: { at?: number; hash?: string };
}
