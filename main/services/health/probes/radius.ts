// RADIUS (ADX seed 000, UDP 1812): Status-Server (RFC 5997) or Access-Request (RFC 2865),
// signed with the shared secret from the secret store. A reply passes only if its Response
// Authenticator proves the server knows the same secret; a server with another secret, or
// one that drops the request, fails.
import { createHash, createHmac, randomBytes, randomInt } from 'node:crypto';
import { secretName, secretToSend } from '../../secrets/types';
import { destination, SecretRefusedError } from '../../secrets/bound';
import { udpExchange } from './exchange';
import type { Evidence, ProbeContext, ProbeOutcome } from './types';
import { TEXT_RULES, textProblem } from '../../../../shared/model/text-rules';
import { fail, fmtMs, pass, dialOf, portFor } from './util';

export const RADIUS_CODES: Record<number, string> = {
  1: 'Access-Request', 2: 'Access-Accept', 3: 'Access-Reject', 4: 'Accounting-Request', 5: 'Accounting-Response',
  11: 'Access-Challenge', 12: 'Status-Server',
};
const ATTR_USER_NAME = 1;
const ATTR_USER_PASSWORD = 2;
const ATTR_NAS_IDENTIFIER = 32;
const ATTR_MESSAGE_AUTHENTICATOR = 80;

/** RFC 2865 5: an attribute's length is one byte, type and length included. */
export const ATTR_VALUE_MAX = 253;

function attr(type: number, value: Buffer): Buffer {
  if (value.length > ATTR_VALUE_MAX) throw new RangeError(`RADIUS attribute ${type} is ${value.length} bytes: at most ${ATTR_VALUE_MAX} fit`);
  return Buffer.concat([Buffer.from([type, value.length + 2]), value]);
}

/** RFC 2865 5.2: the password, padded to 16 bytes, XORed with MD5(secret + authenticator). */
export function hidePassword(password: Buffer, secret: Buffer, authenticator: Buffer): Buffer {
  const padded = Buffer.alloc(Math.max(16, Math.ceil(password.length / 16) * 16));
  password.copy(padded);
  const out = Buffer.alloc(padded.length);
  let prev = authenticator;
  for (let i = 0; i < padded.length; i += 16) {
    const b = createHash('md5').update(secret).update(prev).digest();
    for (let j = 0; j < 16; j++) out[i + j] = padded[i + j]! ^ b[j]!;
    prev = out.subarray(i, i + 16);
  }
  return out;
}

/** A request with a Message-Authenticator (HMAC-MD5 over the packet with that field zeroed). */
export function radiusRequest(code: number, id: number, authenticator: Buffer, attrs: Buffer[], secret: Buffer): Buffer {
  const ma = attr(ATTR_MESSAGE_AUTHENTICATOR, Buffer.alloc(16));
  const body = Buffer.concat([...attrs, ma]);
  const packet = Buffer.concat([Buffer.from([code, id, 0, 0]), authenticator, body]);
  packet.writeUInt16BE(packet.length, 2);
  const mac = createHmac('md5', secret).update(packet).digest();
  mac.copy(packet, packet.length - 16);
  return packet;
}

/** RFC 2865 3: MD5(Code + Identifier + Length + Request Authenticator + Attributes + Secret). */
export function responseAuthenticator(reply: Buffer, requestAuth: Buffer, secret: Buffer): Buffer {
  return createHash('md5').update(reply.subarray(0, 4)).update(requestAuth).update(reply.subarray(20)).update(secret).digest();
}

export async function radiusProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const cfg = ctx.check.radius;
  if (!cfg) return fail('RADIUS check needs healthCheck.radius.secret (the name of the shared secret)');
  const badName = cfg.username === undefined ? undefined : textProblem(TEXT_RULES.radiusUsername, cfg.username);
  if (badName !== undefined) return fail(`radius.username cannot be sent as User-Name: ${badName}`);
  let value: string | undefined;
  try {
    value = await secretToSend(ctx.secrets, secretName.named(cfg.secret), destination(ctx.address, portFor(ctx, 'radius')));
  } catch (err) {
    if (err instanceof SecretRefusedError) return fail(err.message);
    throw err;
  }
  if (value === undefined) return fail(`shared secret "${cfg.secret}" is not in the secret store`);
  const secret = Buffer.from(value, 'utf8');
  const id = randomInt(0, 256);
  const auth = randomBytes(16);
  const nas = attr(ATTR_NAS_IDENTIFIER, Buffer.from('lbdesk-health'));
  const statusServer = cfg.mode === 'status-server';
  const attrs = statusServer
    ? [nas]
    : [attr(ATTR_USER_NAME, Buffer.from(cfg.username ?? 'lbdesk-health')), attr(ATTR_USER_PASSWORD, hidePassword(Buffer.alloc(0), secret, auth)), nas];
  const request = radiusRequest(statusServer ? 12 : 1, id, auth, attrs, secret);
  const sent = RADIUS_CODES[statusServer ? 12 : 1]!;
  const ex = await udpExchange(dialOf(ctx), portFor(ctx, 'radius'), ctx.timeoutMs, request, (r) => r.length >= 20 && r[1] === id && r.readUInt16BE(2) <= r.length);
  if (!ex.ok) return fail(`${sent}: ${ex.reason}${ex.reason.startsWith('no answer') ? ' (down, or a different shared secret)' : ''}`, { request: sent, ...ex.evidence }, ex.rttMs);
  const reply = ex.reply.subarray(0, ex.reply.readUInt16BE(2));
  const code = RADIUS_CODES[reply[0]!] ?? `code ${reply[0]}`;
  const evidence: Evidence = { request: sent, reply: code, rttMs: ex.rttMs };
  if (!responseAuthenticator(reply, auth, secret).equals(reply.subarray(4, 20))) {
    return fail(`${code} with a wrong Response Authenticator: the server has a different shared secret`, evidence, ex.rttMs);
  }
  const good = statusServer ? reply[0] === 2 || reply[0] === 5 : reply[0] === 2 || reply[0] === 3 || reply[0] === 11;
  if (!good) return fail(`${sent} answered ${code}`, evidence, ex.rttMs);
  // An Access-Reject for the probe user still proves a live server that shares the secret.
  const note = reply[0] === 3 ? ' (user rejected; the server is up and shares the secret)' : '';
  return pass(`${sent} answered ${code} in ${fmtMs(ex.rttMs)}${note}`, evidence, ex.rttMs);
}
