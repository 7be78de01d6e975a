// The SSH side of the test boxes (fake-appliance.ts, adx-box.ts): an in-process ssh2 server on
// loopback that accepts one generated user key, offers a pty shell and exec, and no SFTP.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { timingSafeEqual } from 'node:crypto';
import { Server, utils, type ServerChannel, type Connection } from 'ssh2';

export interface SshBox {
  host: string;
  port: number;
  /** A user key file the box accepts (OpenSSH format, no passphrase). */
  keyFile: string;
  /** `[host]:port ssh-ed25519 …`. */
  knownHostsLine: string;
  /** Cuts every connection at once. */
  dropAll(): void;
  /** How many logins the box accepted so far. */
  logins(): number;
  stop(): Promise<void>;
}

export interface SshBoxHandlers {
  shell(stream: ServerChannel): void;
  exec?(stream: ServerChannel, command: string): void;
}

/** An ed25519 pair; ssh2 now and then generates one its own parser rejects, so check and retry. */
function keyPair(): { private: string; public: string } {
  for (let i = 0; i < 10; i++) {
    const k = utils.generateKeyPairSync('ed25519');
    if (!(utils.parseKey(k.private) instanceof Error) && !(utils.parseKey(k.public) instanceof Error)) return k;
  }
  throw new Error('could not generate a usable ed25519 key pair');
}

const sameKey = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

export async function startSshBox(host: string, handlers: SshBoxHandlers): Promise<SshBox> {
  const dir = mkdtempSync(join(tmpdir(), 'lbdesk-box-'));
  const hostKey = keyPair();
  const userKey = keyPair();
  const keyFile = join(dir, 'id_ed25519');
  writeFileSync(keyFile, userKey.private, { mode: 0o600 });
  const allowed = utils.parseKey(userKey.public);
  if (allowed instanceof Error) throw allowed;
  const connections = new Set<Connection>();
  let logins = 0;
  const server = new Server({ hostKeys: [hostKey.private] }, (client) => {
    connections.add(client);
    // As sshd and dropbear do for interactive sessions: no Nagle delay on small packets
    // (ssh2's server connection has setNoDelay; its type does not declare it).
    (client as Connection & { setNoDelay(on: boolean): void }).setNoDelay(true);
    client.on('close', () => connections.delete(client));
    client.on('error', () => undefined);
    client.on('authentication', (ctx) => {
      if (ctx.method === 'publickey' && ctx.key.algo === allowed.type && sameKey(ctx.key.data, allowed.getPublicSSH())
        && (!ctx.signature || allowed.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true)) return ctx.accept();
      ctx.reject(['publickey']);
    });
    client.on('ready', () => {
      logins++;
      client.on('session', (accept) => {
        const session = accept();
        session.on('pty', (ok) => ok?.());
        session.on('window-change', (ok) => ok?.());
        session.on('env', (ok) => ok?.());
        session.on('subsystem', (_ok, reject) => reject?.());   // no SFTP on these boxes
        session.on('shell', (ok) => handlers.shell(ok()));
        session.on('exec', (ok, _reject, info) => {
          const stream = ok();
          if (handlers.exec) return handlers.exec(stream, info.command);
          // A vendor CLI: no POSIX shell, an error message and exit status 0.
          stream.write(`Invalid input -> ${info.command}\r\n`);
          stream.exit(0);
          stream.end();
        });
      });
    });
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve((server.address() as { port: number }).port));
  });
  const pub = hostKey.public.split(' ');
  return {
    host, port, keyFile,
    knownHostsLine: `[${host}]:${port} ${pub[0]} ${pub[1]}`,
    dropAll: () => { for (const c of connections) c.end(); },
    logins: () => logins,
    stop: () => new Promise<void>((resolve) => {
      for (const c of connections) c.end();
      server.close(() => resolve());
    }),
  };
}
