// Problem wording details: an IPv6 address with its port in brackets, a merge key explained, and
// one value two checks refuse said once.
import { describe, expect, it } from 'vitest';
import { parseWorkspace } from '../../../shared/model/validate';

const HEAD = 'lbdesk: 1\nname: x\nservers: [{ name: a, address: 192.0.2.1 }]\ngroups: [{ name: g, members: [{ server: a, port: 80 }] }]\nservices:\n';
const messages = (services: string) => parseWorkspace(`${HEAD}${services}`, 'm.yaml').problems.map((p) => `${p.path}: ${p.message}`);

describe('problem wording', () => {
  it('an IPv6 address and its port are written [::1]:8080, not the ambiguous ::1:8080', () => {
    expect(messages('  - { name: v6, address: "::1", port: 8080, group: g }\n  - { name: v7, address: "::1", port: 8080, group: g }\n')).toEqual([
      'services[0].port: [::1]:8080/tcp is also used by service v7',
      'services[1].port: [::1]:8080/tcp is already used by service v6',
    ]);
  });

  it('a YAML merge key says it is not supported', () => {
    expect(messages('  - <<: { name: m }\n')[0]).toBe('services[0]["<<"]: unknown key "<<" (YAML merge keys are not supported: write the fields out, or use an alias for the whole mapping)');
  });

  it('a number beyond 2^53 is refused once', () => {
    expect(messages('  - { name: v, address: 192.0.2.9, port: 99999999999999999999999, group: g }\n')).toEqual(['services[0].port: must be a port number from 1 to 65535, not the number 1e+23']);
  });
});
