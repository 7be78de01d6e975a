// What a command-driven box says about its members at run time (its show commands, parsed) and
// the commands that change one member's admin state at once, never saved (no write memory).
// Each dialect's words live in its folder (drivers/<name>/show.ts); operate/command-box.ts sends them.

export type LiveAdmin = 'ready' | 'drain' | 'maint';

/** One member as the box prints it. */
export interface BoxMember {
  /** The box's object the member is (ADX real server, F5 node…). */
  object: string;
  address: string;
  port?: number;
  /** The box's container of the member (F5 pool), where members are per container. */
  container?: string;
  admin: LiveAdmin;
  health: 'up' | 'down' | 'no-check';
  sessions?: number;
  weight?: number;
  /** The box's own words for its state and last check. */
  check?: string;
  /** Where the box has it, in its words (`real rs2 port http`). */
  on: string;
}

export interface LiveDialect {
  /** Read-only show commands whose outputs, in order, parse() reads. */
  show: string[];
  /** Show commands named from the first outputs (NetScaler: `show serviceGroup G` per group), run after them. */
  then?(outputs: string[]): string[];
  parse(outputs: string[]): BoxMember[];
  /** Commands (from the exec prompt, back to it) that set `admin` on the member, not saved. */
  change(member: BoxMember, admin: LiveAdmin): string[];
}
