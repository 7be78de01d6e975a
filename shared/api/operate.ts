// The Operate view's calls: each member as the live box sees it, and runtime changes on it
// (drain, maintenance, ready) without a reload or a config change (docs/sync.md, "Runtime operations").

export const ADMIN_STATES = ['ready', 'drain', 'maint'] as const;
export type AdminState = (typeof ADMIN_STATES)[number];
export type BoxHealth = 'up' | 'down' | 'no-check' | 'unknown';

export interface LiveMember {
  group: string;
  server: string;
  port?: number;
  /** `GROUP/SERVER:PORT`, as the runtime methods take it. */
  label: string;
  admin?: AdminState;
  health: BoxHealth;
  sessions?: number;
  weight?: number;
  /** The box's own words for its last check (HAProxy: `L4OK in 0ms`). */
  check?: string;
  why?: string;
  /** Where the box has it (HAProxy: `backend/server`). */
  on?: string[];
}

export interface LiveState {
  appliance: string;
  driver: string;
  /** How the box is reached (`root@host:22, stats socket … via socat`). */
  via: string;
  /** Epoch ms when the box was asked. */
  askedAt: number;
  members: LiveMember[];
}

export interface RuntimeResult {
  ok: boolean;
  /** The box's words when it refused (nothing was changed then). */
  refused?: string;
  members: string[];
}
