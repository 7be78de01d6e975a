// The words of each refusal a user sees before a push sends anything: the same from the CLI
// and in the window (the API as `refused` or `unsupported`, the CLI exit 1 or 2).

/** A vendor's command line keeps no timer that could restore the previous config. */
export const NO_CONFIRM_CLI = 'commit-confirmed is not supported for driver cli appliances (a vendor CLI has no rollback timer)';

/** PingDirectoryProxy's dsconfig has no confirm timer, and lbdesk holds none for a batch yet. */
export const NO_CONFIRM_BATCH = 'commit-confirmed is not supported for a dsconfig batch: a push applies the batch, and rolls back by the inverse commands on an error';

/** Commit-confirmed asked of an appliance that cannot roll back by itself (`why`: its noConfirm). */
export const noConfirmFor = (appliance: string, why: string): string => `${appliance}: ${why}`;

/** The appliance does not render (or its paths are wrong): refused before any login. */
export const cannotRender = (errors: string[]): string => `cannot render: ${errors.join('; ')}`;

/** The workspace's problem list: what would refuse a push to the appliance. */
export const wouldRefuse = (appliance: string, why: string): string => `a push to ${appliance} would be refused: ${why}`;

/** A pair push needs its two boxes. */
export const notTwoMembers = (pair: string): string => `pair ${pair} does not have two members`;

const known = (names: string[], what: string): string => (names.length ? names.join(', ') : `none, the workspace has no ${what}`);

/** A name the workspace does not hold (the CLI exits 2, the API says `not-found`). */
export const unknownAppliance = (name: string, names: string[]): string => `unknown appliance "${name}" (known: ${known(names, 'appliances')})`;

export const unknownPair = (name: string, names: string[]): string => `unknown pair "${name}" (known: ${known(names, 'pairs')})`;
