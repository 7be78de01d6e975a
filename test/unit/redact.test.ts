import { describe, expect, it } from 'vitest';
import { redact } from '../../main/services/vendor/redact';

describe('redact', () => {
  it.each([
    ['username admin password 0 S3cret', 'username admin password 0 <redacted>'],
    ['enable secret Hidden1', 'enable secret <redacted>'],
    ['snmp-server community Publ1c RO', 'snmp-server community <redacted> RO'],
    ['pre-shared-key ascii-text IkeSecret9', 'pre-shared-key ascii-text <redacted>'],
    ['ip ospf message-digest-key 1 md5 OspfSecret', 'ip ospf message-digest-key 1 md5 <redacted>'],
    ['snmp-server user ops grp v3 auth sha AuthPw1 priv aes 128 PrivPw2', 'snmp-server user ops grp v3 auth sha <redacted> priv aes 128 <redacted>'],
    ['  stats auth admin:pw', '  stats auth admin:<redacted>'],
    ['  user ops insecure-password Plain9', '  user ops insecure-password <redacted>'],
    ['password=Eq1', 'password=<redacted>'],
    ['Password: Typed1', 'Password: <redacted>'],
    ['    auth_pass VrrpPw', '    auth_pass <redacted>'],
  ])('%s', (line, shown) => {
    expect(redact(line)).toBe(shown);
  });

  it('leaves lines without a secret alone', () => {
    for (const line of ['server real web1 192.0.2.10', 'backend be', '  balance roundrobin', 'interface ethernet 1/1']) expect(redact(line)).toBe(line);
  });
});
