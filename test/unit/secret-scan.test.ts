import { describe, expect, it } from 'vitest';
import { plainSecretField } from '../../shared/model/secret-scan';

describe('plainSecretField', () => {
  const group = (check: string) => `lbdesk: 1\nname: x\ngroups:\n  - name: g\n    members: []\n    healthCheck: { type: radius, radius: ${check} }\n`;
  it('finds a typed secret however the key is spelt, and whatever the version says', () => {
    expect(plainSecretField(group('{ secret: "hunter2 p@ss!" }'))).toBe('groups[0].healthCheck.radius.secret');
    expect(plainSecretField(group('{ "secret": "hunter2 p@ss!" }'))).toBe('groups[0].healthCheck.radius.secret');
    expect(plainSecretField(group('{ "secr\\x65t": "hunter2 p@ss!" }'))).toBe('groups[0].healthCheck.radius.secret');
    expect(plainSecretField(group('{ secret: "hunter2 p@ss!" }').replace('lbdesk: 1', 'lbdesk: 2'))).toBe('groups[0].healthCheck.radius.secret');
    expect(plainSecretField('a:\n  - b:\n      bindSecret: [x, y]\n')).toBe('a[0].b.bindSecret');
    expect(plainSecretField('x: &p "pa ss"\nldap: { bindSecret: *p }\n')).toBe('ldap.bindSecret');
    expect(plainSecretField('x: { secret: 1234 }\n')).toBe('x.secret');
    // A key spelt with an escaped line break, and an alias as the key.
    expect(plainSecretField('radius:\n  ? "sec\\\n    ret"\n  : My Pass Word 1!\n')).toBe('radius.secret');
    expect(plainSecretField('description: &k secret\nradius:\n  *k : My Pass Word 2!\n')).toBe('radius.secret');
  });
  it('passes secret names, empty fields, other keys and broken YAML without such a field', () => {
    expect(plainSecretField(group('{ secret: radius-shared }'))).toBeUndefined();
    expect(plainSecretField(group('{ secret: }'))).toBeUndefined();
    expect(plainSecretField('description: "the secret: is hunter2"\nsecretive: yes\n')).toBeUndefined();
    expect(plainSecretField('a: [unclosed\n')).toBeUndefined();
  });
});
