import { describe, expect, it } from 'vitest';
import { plainSecretField } from '../../../shared/model/secret-scan';

const group = (check: string) => `lbdesk: 1\nname: x\ngroups:\n  - name: g\n    members: []\n    healthCheck: { type: radius, radius: ${check} }\n`;
const RADIUS = 'groups[0].healthCheck.radius.secret';

describe('plainSecretField', () => {
  it.each([
    ['an unquoted key', group('{ secret: "hunter2 p@ss!" }'), RADIUS],
    ['a quoted key', group('{ "secret": "hunter2 p@ss!" }'), RADIUS],
    ['an escape in a quoted key', group('{ "secr\\x65t": "hunter2 p@ss!" }'), RADIUS],
    ['a version the validator stops on', group('{ secret: "hunter2 p@ss!" }').replace('lbdesk: 1', 'lbdesk: 2'), RADIUS],
    ['a list where a name goes', 'a:\n  - b:\n      bindSecret: [x, y]\n', 'a[0].b.bindSecret'],
    ['an alias to a value with a space', 'x: &p "pa ss"\nldap: { bindSecret: *p }\n', 'ldap.bindSecret'],
    ['a number', 'x: { secret: 1234 }\n', 'x.secret'],
    ['a key spelt with an escaped line break', 'radius:\n  ? "sec\\\n    ret"\n  : My Pass Word 1!\n', 'radius.secret'],
    ['an alias as the key', 'description: &k secret\nradius:\n  *k : My Pass Word 2!\n', 'radius.secret'],
  ])('finds a typed secret: %s', (_what, text, path) => {
    expect(plainSecretField(text)).toBe(path);
  });

  it.each([
    ['a secret name', group('{ secret: radius-shared }')],
    ['an empty field', group('{ secret: }')],
    ['other keys that say secret', 'description: "the secret: is hunter2"\nsecretive: yes\n'],
    ['broken YAML without such a field', 'a: [unclosed\n'],
  ])('passes %s', (_what, text) => {
    expect(plainSecretField(text)).toBeUndefined();
  });
});
