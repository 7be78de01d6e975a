// One SSH login for a whole user action: diff → push → the diff after it, pull → diff. The
// action opens the connection once and every sync call of it gets it as `connection` (which
// they never close); it is closed when the action ends, also on error. A box whose login asks
// a one-time code (keyboard-interactive) asks it once per action, not once per step.
import { connectSsh, type SshConnection, type SshEndpoint, type SshOptions } from '../ssh/connect';

export async function withSession<O extends SshOptions & { connection?: SshConnection }, T>(
  endpoint: SshEndpoint,
  opts: O,
  action: (opts: O & { connection: SshConnection }) => Promise<T>,
): Promise<T> {
  if (opts.connection) return action({ ...opts, connection: opts.connection });
  const connection = await connectSsh(endpoint, opts);
  try {
    return await action({ ...opts, connection });
  } finally {
    connection.close();
  }
}
