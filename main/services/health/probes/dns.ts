// DNS (ADX seed 000, UDP 53): a real query; only NOERROR with at least one answer passes.
import { randomInt } from 'node:crypto';
import * as dnsPacket from 'dns-packet';
import { udpExchange } from './exchange';
import type { Evidence, ProbeContext, ProbeOutcome } from './types';
import { TEXT_RULES, textProblem } from '../../../../shared/model/text-rules';
import { clip, fail, fmtMs, pass, dialOf, portFor } from './util';

const RCODES = ['NOERROR', 'FORMERR', 'SERVFAIL', 'NXDOMAIN', 'NOTIMP', 'REFUSED', 'YXDOMAIN', 'YXRRSET', 'NXRRSET', 'NOTAUTH', 'NOTZONE'];
/** Without `dns:` settings: the root zone's NS set, which any recursive resolver can give. */
export const DEFAULT_DNS_QUERY = { query: '.', recordType: 'NS' } as const;

/**
 * Record data as a zone file shows it: TXT strings quoted, MX/SRV/SOA fields in order, other
 * bytes as text where printable, else hex.
 */
export function rdataText(data: unknown): string {
  if (typeof data === 'string' || typeof data === 'number') return String(data);
  if (Buffer.isBuffer(data) || data instanceof Uint8Array) {
    const b = Buffer.from(data);
    const text = b.toString('utf8');
    return /^[\x20-\x7e]*$/.test(text) ? `"${text}"` : `0x${b.toString('hex')}`;
  }
  if (Array.isArray(data)) return data.map(rdataText).join(' ');
  if (data && typeof data === 'object') return Object.values(data).map(rdataText).join(' ');
  return '';
}

export async function dnsProbe(ctx: ProbeContext): Promise<ProbeOutcome> {
  const q = ctx.check.dns ?? DEFAULT_DNS_QUERY;
  // A label's length is one byte on the wire: a longer one would be read as other fields.
  const bad = textProblem(TEXT_RULES.dnsQuery, q.query);
  if (bad !== undefined) return fail(`dns.query "${clip(q.query, 60)}" cannot be asked: ${bad}`);
  const name = q.query === '.' ? '.' : q.query.replace(/\.$/, '');
  const id = randomInt(0, 65536);
  const request = dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type: q.recordType, name }] });
  const ex = await udpExchange(dialOf(ctx), portFor(ctx, 'dns'), ctx.timeoutMs, request, (b) => b.length >= 12 && b.readUInt16BE(0) === id && (b[2]! & 0x80) !== 0);
  const asked = `${q.recordType} ${q.query}`;
  if (!ex.ok) return fail(`${asked}: ${ex.reason}`, { question: asked, ...ex.evidence }, ex.rttMs);
  let decoded: dnsPacket.DecodedPacket;
  try {
    decoded = dnsPacket.decode(ex.reply);
  } catch (err) {
    return fail(`${asked}: malformed DNS response (${clip((err as Error).message, 60)})`, { question: asked, bytes: ex.reply.length }, ex.rttMs);
  }
  const rcodeNum = (decoded.flags ?? 0) & 0xf;
  const rcode = RCODES[rcodeNum] ?? `RCODE${rcodeNum}`;
  const answers = decoded.answers ?? [];
  const evidence: Evidence = { question: asked, rcode, answers: answers.length, aa: decoded.flag_aa, tc: decoded.flag_tc, rttMs: ex.rttMs };
  const first = answers[0];
  if (first) {
    evidence.firstAnswer = clip(`${first.type} ${rdataText((first as { data?: unknown }).data)}`, 120);
  }
  if (rcode !== 'NOERROR') return fail(`${asked}: ${rcode}`, evidence, ex.rttMs);
  if (answers.length === 0) return fail(`${asked}: NOERROR but no answer${decoded.flag_tc ? ' (truncated)' : ''}`, evidence, ex.rttMs);
  return pass(`${asked}: NOERROR, ${answers.length} answer(s) (${String(evidence.firstAnswer)}) in ${fmtMs(ex.rttMs)}`, evidence, ex.rttMs);
}
