// The addresses a haproxy.cfg listens on, as a push of a kept-sections file verifies them.
import { describe, expect, it } from 'vitest';
import { haproxyListeners } from '../../../../main/services/drivers/sections/haproxy-binds';

describe('haproxyListeners', () => {
  it('lists every frontend and listen bind, wildcards on loopback, sockets left out, each once', () => {
    const cfg = [
      'global', '\tstats socket /run/haproxy.sock level admin', '',
      'listen stats', '\tbind 192.0.2.10:8404', '',
      'frontend https-in', '   bind 192.0.2.10:443 ssl crt /etc/ssl/site.pem', '\tbind [2001:db8::1]:443 ssl crt /x',
      'frontend www', '\tbind :80,192.0.2.11:8080', '\tbind *:80', '\tbind unix@/run/www.sock', '\tbind ipv4@192.0.2.12:81',
      'backend web', '\tserver a 192.0.2.20:80', '',
    ].join('\n');
    expect(haproxyListeners(cfg)).toEqual([
      { address: '192.0.2.10', port: 8404 },
      { address: '192.0.2.10', port: 443 },
      { address: '2001:db8::1', port: 443 },
      { address: '127.0.0.1', port: 80 },
      { address: '192.0.2.11', port: 8080 },
      { address: '192.0.2.12', port: 81 },
    ]);
  });
});
