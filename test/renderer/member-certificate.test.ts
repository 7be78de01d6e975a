// The member detail's certificate box: the real lab behind the real API checks a node:tls server
// on 127.0.29.31 whose certificate (made by openssl for this run) ends in 10 days, and the box
// shows it as a warning; the box alone for a long-valid and an expired certificate, on a given clock.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mount } from '@vue/test-utils';
import type { Pinia } from 'pinia';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { realApi, type RealApi } from '../helpers/renderer/api';
import { mountWith, storeContext, until } from '../helpers/renderer/mount';
import { freePort } from '../helpers/renderer/workspace';
import { noOpenssl, selfSignedCert, startTlsServer, type Running } from '../helpers/servers';
import { skipBecause } from '../helpers/skip';
import { useWorkspace } from '../../renderer/src/stores/workspace';
import { useLab } from '../../renderer/src/stores/lab';
import MemberDetail from '../../renderer/src/lab/MemberDetail.vue';
import CertificateBox from '../../renderer/src/lab/CertificateBox.vue';
import type { CertificateSeen } from '../../shared/api/types';

const DAY = 86_400_000;

describe('certificate box (a given clock)', () => {
  const at = Date.UTC(2026, 11, 2, 12);
  const cert = (notAfter: number): CertificateSeen => ({
    subject: 'CN=web.test', issuer: 'CN=ca.test', sans: ['DNS:web.test', 'IP Address:192.0.2.7'], notBefore: at - 10 * DAY, notAfter,
    sha256: 'AB:CD:EF', daysLeft: Math.floor((notAfter - at) / DAY),
  });

  it('long-valid is plain, under 30 days a warning, past notAfter expired', () => {
    const ok = mount(CertificateBox, { props: { certificate: cert(at + 400 * DAY), at } });
    expect(ok.find('[data-testid="certificate"]').attributes('data-level')).toBe('ok');
    expect(ok.find('[data-testid="certificate-expiry"]').text()).toMatch(/^Valid: expires in 400 days \(400 days left at the check/);
    expect(ok.text()).toContain('DNS:web.test, IP Address:192.0.2.7');
    expect(ok.text()).toContain('AB:CD:EF');
    const soon = mount(CertificateBox, { props: { certificate: cert(at + 29 * DAY + 5), at } });
    expect(soon.find('.cert').classes()).toContain('warning');
    expect(soon.find('[data-testid="certificate-expiry"]').text()).toMatch(/^Expires soon: expires in 29 days/);
    const gone = mount(CertificateBox, { props: { certificate: { ...cert(at - 3 * DAY), daysLeft: -3 }, at } });
    expect(gone.find('.cert').classes()).toContain('expired');
    expect(gone.find('[data-testid="certificate-expiry"]').attributes('role')).toBe('status');
    expect(gone.find('[data-testid="certificate-expiry"]').text()).toMatch(/^Expired: expired 3 days ago \(-3 days left/);
  });
});

describe.skipIf(skipBecause(noOpenssl, 'member certificate'))(`member detail: certificate of a running lab's TLS check${noOpenssl}`, () => {
  let real: RealApi;
  let pinia: Pinia;
  let server: Running | undefined;
  beforeEach(() => {
    real = realApi();
    pinia = storeContext(real.api);
  });
  afterEach(async () => {
    await useLab().stop();
    await real.close();
    await server?.close();
  });

  it('shows the certificate the ssl check saw, warned: it ends in 10 days', async () => {
    server = await startTlsServer('127.0.29.31', selfSignedCert('soon.test', '127.0.29.31', 10));
    const vport = await freePort('127.0.29.30');
    const file = join(real.dataDir, 'certs.yaml');
    await writeFile(file, [
      'lbdesk: 1', 'name: cert-ui',
      'healthTimers: { interval: 1s, retryInterval: 500ms, timeout: 2s }',
      'servers: [ { name: s1, address: 127.0.29.31 } ]',
      `groups: [ { name: tls, members: [ { server: s1, port: ${server.port} } ], healthCheck: { type: ssl } } ]`,
      `services: [ { name: v, address: 127.0.29.30, port: ${vport}, group: tls } ]`,
      '',
    ].join('\n'));
    await useWorkspace().open(file);
    const lab = useLab();
    expect(await lab.start()).toBe(true);
    const key = `g:tls/s1:${server.port}`;
    const w = mountWith(MemberDetail, real.api, pinia, { memberKey: key });
    await until(() => w.find('[data-testid="member-certificate"]').exists(), 8000, 'the certificate box');
    const box = w.find('[data-testid="certificate"]');
    expect(box.attributes('data-level')).toBe('warning');
    expect(w.find('[data-testid="certificate-expiry"]').text()).toMatch(/^Expires soon: expires in 9 days \(9 days left at the check/);
    expect(box.text()).toContain('CN=soon.test');
    expect(box.text()).toContain('IP Address:127.0.29.31');
    expect(box.text()).toMatch(/([0-9A-F]{2}:){31}[0-9A-F]{2}/);
    w.unmount();
  }, 30_000);

  it('Check now without a lab: the one-off ssl check\'s certificate, expired, in red', async () => {
    server = await startTlsServer('127.0.29.32', selfSignedCert('gone.test', undefined, -1));
    const file = join(real.dataDir, 'gone.yaml');
    await writeFile(file, [
      'lbdesk: 1', 'name: cert-once',
      'servers: [ { name: s2, address: 127.0.29.32 } ]',
      `groups: [ { name: tls, members: [ { server: s2, port: ${server.port} } ], healthCheck: { type: ssl } } ]`,
      '',
    ].join('\n'));
    await useWorkspace().open(file);
    const w = mountWith(MemberDetail, real.api, pinia, { memberKey: `g:tls/s2:${server.port}` });
    expect(w.find('[data-testid="member-certificate"]').exists()).toBe(false);
    await w.findAll('button').find((b) => b.text() === 'Check now')!.trigger('click');
    await until(() => w.find('[data-testid="member-certificate"]').exists(), 8000, 'the certificate box');
    expect(w.find('[data-testid="certificate"]').attributes('data-level')).toBe('expired');
    expect(w.find('[data-testid="certificate-expiry"]').text()).toMatch(/^Expired: expired 1 day ago \(-1 days left at the check/);
    expect(w.text()).toContain('CN=gone.test');
    w.unmount();
  }, 30_000);
});
