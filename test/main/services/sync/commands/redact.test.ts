import { describe, expect, it } from 'vitest';
import { redact, redactPatch } from '../../../../../main/services/sync/commands/redact';

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
    ['    auth_pass "two words"', '    auth_pass <redacted>'],
    ['  user ops insecure-password "hunter 2 two"', '  user ops insecure-password <redacted>'],
    ['  stats auth admin:"p w"', '  stats auth admin:<redacted>'],
    ["password 'quoted single pw'", 'password <redacted>'],
    ['ip ospf authentication-key OspfPlainKey', 'ip ospf authentication-key <redacted>'],
    ['db_password: X1', 'db_password: <redacted>'],
    ['set admin_password X2', 'set admin_password <redacted>'],
    ['bindpw X3', 'bindpw <redacted>'],
  ])('%s', (line, shown) => {
    expect(redact(line)).toBe(shown);
  });

  it('leaves lines without a secret alone', () => {
    for (const line of ['server real web1 192.0.2.10', 'backend be', '  balance roundrobin', 'interface ethernet 1/1']) expect(redact(line)).toBe(line);
  });

  it('works line by line: a bare keyword never takes the next line', () => {
    expect(redact('crypto key 1\n-next line\n')).toBe('crypto key <redacted>\n-next line\n');
  });

  it('redacts a patch after each line marker: a removed line that starts with a keyword too', () => {
    const patch = '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-password OldRootPw1\n+password NewRootPw2\n stats auth admin:pw\n';
    expect(redactPatch(patch)).toBe('--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-password <redacted>\n+password <redacted>\n stats auth admin:<redacted>\n');
  });
});

