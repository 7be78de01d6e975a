import { describe, expect, it } from 'vitest';
import { formatLoadLine, parseLoadDatagram, parseLoadLine } from '../../../../main/services/engine/heartbeat';

describe('heartbeat load lines', () => {
  it('parses every field', () => {
    expect(parseLoadLine('load m=120 mtotal=1000 c=35 ctotal=5000 server=127.0.5.51 ttl=3s')).toEqual({ m: 120, mtotal: 1000, c: 35, ctotal: 5000, server: '127.0.5.51', ttlMs: 3000 });
    expect(parseLoadLine('LOAD c=1.5 ttl=500ms')).toEqual({ c: 1.5, ttlMs: 500 });
    expect(parseLoadLine('load ttl=2')).toEqual({ ttlMs: 2000 });
  });
  it('ignores blank and comment lines', () => {
    expect(parseLoadLine('   ')).toBeUndefined();
    expect(parseLoadLine('# load m=1')).toBeUndefined();
    expect(parseLoadLine('load m=1 # trailing')).toEqual({ m: 1 });
  });
  it('says what is wrong with a bad line', () => {
    expect(parseLoadLine('hello m=1')).toBe('expected "load", got "hello"');
    expect(parseLoadLine('load m=-1')).toBe('m=-1 is not a number >= 0');
    expect(parseLoadLine('load m=')).toBe('m= is not a number >= 0');
    expect(parseLoadLine('load q=1')).toBe('unknown field "q"');
    expect(parseLoadLine('load m')).toBe('"m" is not name=value');
    expect(parseLoadLine('load ctotal=0')).toBe('mtotal and ctotal must be > 0');
    expect(parseLoadLine('load ttl=soon')).toBe('ttl=soon is not a duration');
  });
  it('takes several lines per datagram and round-trips', () => {
    const r = parseLoadDatagram('load m=1 server=127.0.5.51\r\nbogus\nload c=2 server=127.0.5.52\n');
    expect(r.reports).toEqual([{ m: 1, server: '127.0.5.51' }, { c: 2, server: '127.0.5.52' }]);
    expect(r.errors).toEqual(['expected "load", got "bogus"']);
    const line = formatLoadLine({ m: 5, mtotal: 10, c: 1, ctotal: 2, server: '::1', ttlMs: 1500 });
    expect(parseLoadLine(line)).toEqual({ m: 5, mtotal: 10, c: 1, ctotal: 2, server: '::1', ttlMs: 1500 });
  });
});
