// What a box says about one workspace member at run time, and what a driver offers to ask it
// and to change it (drain, maintenance, ready) without a reload.
import type { Appliance, Workspace } from '../../../shared/model/schema';
import type { AdminState, BoxHealth, LiveMember } from '../../../shared/api/operate';
import type { BoxKeeper, Remote } from '../sync/remote';
import type { SshConnection } from '../ssh/connect';
import type { SecretStore } from '../secrets/types';

export type { AdminState, BoxHealth };

/** A group member of the workspace, as MEMBER names it. */
export interface WorkspaceMember {
  group: string;
  server: string;
  port?: number;
  address: string;
  /** `GROUP/SERVER:PORT` (`GROUP/SERVER` when the member has no port of its own). */
  label: string;
}

/** A member as the box has it: what the Operate view gets, without the label the view adds. */
export type MemberState = Omit<LiveMember, 'label'>;

/** The result of a runtime change: refused by the box (its words) or done. */
export type SetOutcome = { ok: true } | { ok: false; refused: string };

/** One box's runtime, over one open connection: asked and changed as often as the caller likes. */
export interface Runtime {
  /** How the box is reached (e.g. `stats socket /run/haproxy/admin.sock via python3`). */
  via(): Promise<string>;
  state(members: WorkspaceMember[]): Promise<MemberState[]>;
  /** Every member must be known to the box (state() says): else nothing is sent. */
  set(members: WorkspaceMember[], admin: AdminState): Promise<SetOutcome>;
  /** Which running process answers (HAProxy: the worker's pid): it changes with a reload. */
  generation(): Promise<string>;
  /**
   * Where the box can set states itself: the script and data its commit-confirmed timer runs to
   * set these again after its own reload (members resolved now, on the running config).
   */
  boxKeeper?(sets: { members: WorkspaceMember[]; admin: AdminState }[]): Promise<BoxKeeper>;
}

export interface RuntimeContext {
  workspace: Workspace;
  appliance: Appliance;
  /** The box's config file and commands (a command-driven box has no file: its paths go unused). */
  remote: Remote;
  conn: SshConnection;
  /** Where the box's config lives (the socket is declared there). */
  configPath: string;
  /** Passwords the runtime binds with (PingDirectoryProxy's cn=monitor). */
  secrets?: SecretStore;
}

/** The per-driver part: drivers without one have no runtime operations in lbdesk yet. */
export interface RuntimeDriver {
  open(ctx: RuntimeContext): Runtime;
  /** Finds its way in through the box's config file (HAProxy: the stats socket it declares). */
  readsConfigFile?: boolean;
}
