// The two streaming protocols of the ADX list (seed 000).
//  - MMS (Microsoft Media Server, MS-MMSP): the client's first message, LinkViewerToMacConnect,
//    in a TcpMessageHeader; the server must answer LinkMacToViewerReportConnectedEX with
//    hr = 0 (S_OK). No file is opened, so no stream starts.
//  - PNM (RealNetworks PNA): the handshake is proprietary and challenge-based, so lbdesk does
//    not imitate a player. The check is a TCP connection that the server accepts and keeps
//    open for a short settle time (a server that accepts and drops at once fails), closed with
//    FIN. This is a Layer 4 check with one extra condition, and docs/health.md says so.
import { randomUUID } from 'node:crypto';
import type { Conn } from './conn';
import { dialogue } from './conn';
import type { Evidence, ProbeContext, ProbeOutcome } from './types';
import { ProbeFailure, deadline, fail, fmtMs, hostForUrl, pass, dialOf, portFor } from './util';

const MMS_SESSION_ID = 0xb00bface;
const MMS_SEAL = 0x20534d4d; // "MMS "
const MID_CONNECT = 0x00030001;
const MID_REPORT_CONNECTED_EX = 0x00040001;
const DISABLE_PACKET_PAIR = 0xf0f0f0ef;

/** A TcpMessageHeader (32 bytes) carrying one MMS message (little-endian throughout). */
export function mmsPacket(mid: number, fields: number[], text: string, seq = 0): Buffer {
  const name = Buffer.from(`${text}\u0000`, 'utf16le');
  const bodyLen = 8 + fields.length * 4 + name.length;
  const msgLen = Math.ceil(bodyLen / 8) * 8;
  const msg = Buffer.alloc(msgLen);
  msg.writeUInt32LE(msgLen / 8, 0); // chunkLen
  msg.writeUInt32LE(mid, 4);
  fields.forEach((f, i) => msg.writeUInt32LE(f >>> 0, 8 + i * 4));
  name.copy(msg, 8 + fields.length * 4);
  const head = Buffer.alloc(32);
  head.writeUInt8(1, 0); // rep
  head.writeUInt32LE(MMS_SESSION_ID, 4);
  head.writeUInt32LE(msgLen + 16, 8); // messageLength
  head.writeUInt32LE(MMS_SEAL, 12);
  head.writeUInt32LE((msgLen + 16) / 8, 16); // chunkCount, as deployed clients send it
  head.writeUInt16LE(seq, 20);
  return Buffer.concat([head, msg]);
}

/** Reads one TcpMessageHeader packet; returns its MMS message bytes. */
export async function readMmsPacket(c: Conn): Promise<Buffer> {
  const head = await c.bytes(32);
  if (head.readUInt32LE(4) !== MMS_SESSION_ID || head.readUInt32LE(12) !== MMS_SEAL) {
    throw new ProbeFailure('not an MMS reply (no B00BFACE session id and "MMS " seal)', { firstBytes: head.subarray(0, 16).toString('hex') });
  }
  const len = head.readUInt32LE(8) - 16;
  if (len < 8 || len > 65536) throw new ProbeFailure(`MMS reply with bad messageLength ${len + 16}`);
  return c.bytes(len);
}

export function mmsProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = portFor(ctx, 'mms');
  const subscriber = `NSPlayer/9.0.0.2980; {${randomUUID()}}; Host: ${hostForUrl(ctx.address)}:${port}`;
  return dialogue(dialOf(ctx), port, ctx.timeoutMs, async (c) => {
    c.phase = 'waiting for LinkMacToViewerReportConnectedEX';
    c.write(mmsPacket(MID_CONNECT, [DISABLE_PACKET_PAIR, 0x0004000b, 0x0003001c], subscriber));
    const msg = await readMmsPacket(c);
    const ms = c.elapsed();
    const mid = msg.readUInt32LE(4);
    const ev: Evidence = { mid: `0x${mid.toString(16).padStart(8, '0')}`, connectMs: c.connectMs ?? 0 };
    if (mid !== MID_REPORT_CONNECTED_EX) return fail(`unexpected MMS message ${ev.mid} (wanted ReportConnectedEX 0x00040001)`, ev, ms);
    const hr = msg.length >= 12 ? msg.readUInt32LE(8) : 0xffffffff;
    ev.hr = `0x${hr.toString(16).padStart(8, '0')}`;
    const version = serverVersion(msg);
    if (version) ev.serverVersion = version;
    if (hr !== 0) return fail(`MMS connect refused: hr ${ev.hr}`, ev, ms);
    return pass(`MMS ReportConnectedEX (hr S_OK${version ? `, server ${version}` : ''}) in ${fmtMs(ms)}`, ev, ms);
  }).then((r) => (r instanceof ProbeFailure ? fail(r.reason, r.evidence) : r));
}

/** ServerVersionInfo: UTF-16LE at offset 64 of ReportConnectedEX, cbServerVersionInfo chars at 48. */
function serverVersion(msg: Buffer): string | undefined {
  if (msg.length < 64) return undefined;
  const chars = msg.readUInt32LE(48);
  if (chars === 0 || 64 + chars * 2 > msg.length) return undefined;
  return msg.subarray(64, 64 + chars * 2).toString('utf16le').replace(/\0+$/, '').slice(0, 40);
}

/** How long a PNM server must keep an accepted connection open. */
export const PNM_SETTLE_MS = 100;

export function pnmProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const port = portFor(ctx, 'pnm');
  const settle = Math.min(PNM_SETTLE_MS, Math.floor(ctx.timeoutMs / 2));
  return dialogue(dialOf(ctx), port, ctx.timeoutMs, async (c) => {
    const connectMs = c.connectMs ?? 0;
    c.phase = 'right after accepting the connection';
    const closed = await new Promise<string | undefined>((resolve) => {
      const t = deadline(settle, () => resolve(undefined));
      c.read((_buf, eof) => (eof ? 0 : -1)).then(
        () => {
          t.clear();
          resolve('closed the connection');
        },
        (err: unknown) => {
          t.clear();
          resolve(err instanceof ProbeFailure ? err.reason : String(err));
        },
      );
    });
    const ev: Evidence = { connectMs, settleMs: settle };
    if (closed) return fail(`PNM server accepted, then ${closed.replace(/^connection closed by the server .*/, 'closed the connection')} within ${fmtMs(settle)}`, ev, connectMs);
    return pass(`PNM port accepted the connection in ${fmtMs(connectMs)} and held it ${fmtMs(settle)} (PNA handshake not attempted)`, ev, connectMs);
  }).then((r) => (r instanceof ProbeFailure ? fail(r.reason, r.evidence) : r));
}
