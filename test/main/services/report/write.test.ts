// The change report's two files: every value from the workspace or an appliance is text, never
// markup, in both; the HTML loads nothing; two reports in one second both stay.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ChangeReport } from '../../../../shared/api/report';
import { reportHtml, reportMarkdown, reportName, writeReport } from '../../../../main/services/report';
import { diffCounts } from '../../../../main/services/report/blocks';

const dir = mkdtempSync(join(tmpdir(), 'lbdesk-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PATCH = '--- a/etc/app.cfg\tappliance\n+++ b/etc/app.cfg\trendered\n@@ -1,3 +1,3 @@\n global\n-  server web1 127.0.0.1:80 weight 10\n+  server web1 127.0.0.1:80 weight 20 # <b>``` | </b>\n ```\n ok\n';

function sample(over: Partial<ChangeReport> = {}): ChangeReport {
  return {
    at: Date.UTC(2026, 11, 2, 0, 31, 5),
    version: '0.1.0',
    workspace: { path: join(dir, 'site-a.yaml'), name: 'site <script>alert(1)</script>', sha256: 'ab'.repeat(32), bytes: 1234, unsaved: true },
    validation: { errors: 1, warnings: 0, problems: [{ severity: 'error', file: 'site-a.yaml', line: 12, col: 5, path: 'servers[0].address', message: 'must be an IP address, not "a|b`c"' }] },
    appliances: [
      {
        name: 'lb1', driver: 'haproxy', target: 'root@127.0.0.1:22', configPath: '/etc/app.cfg', manage: 'file', errors: [], warnings: [],
        renderedSha256: 'cd'.repeat(32), live: { state: 'checked', changed: true, patch: PATCH, remoteSha256: 'ef'.repeat(32), conflicts: [] },
        lastPush: { at: Date.UTC(2026, 11, 1, 23, 0, 0), kind: 'push', outcome: 'applied', sha256: 'ef'.repeat(32), confirm: 'confirmed', settledAt: Date.UTC(2026, 11, 1, 23, 1, 0) },
        lastPushMatches: false,
      },
      { name: 'lb2', driver: 'keepalived', target: 'root@127.0.0.2:22', configPath: '/etc/k.conf', manage: 'sections', errors: [], warnings: [], live: { state: 'unreachable', reason: 'connect ECONNREFUSED 127.0.0.2:22' } },
    ],
    lab: { state: 'running', path: join(dir, 'site-a.yaml'), uptimeMs: 300_000, counts: { available: 3, unavailable: 1 }, members: [{ group: 'web', server: 'web2', state: 'unavailable', reason: 'connect refused | <i>', since: Date.UTC(2026, 11, 2, 0, 30, 0) }], changes: 2, pools: [{ name: 'web-vip', kind: 'service', active: 1, total: 40, bytesIn: 100, bytesOut: 2000, errors: 1, refused: 0 }] },
    capacity: ['this change leaves web-vip with one member, web/web1:8081 (web/web2:8081 failed)'],
    ...over,
  };
}

describe('change report files', () => {
  it('HTML: values are text, the diff lines are marked, nothing is loaded or run', () => {
    const html = reportHtml(sample());
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('site &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(html).not.toMatch(/\b(src|href)=/);
    expect(html).toContain('<span class="add">+  server web1 127.0.0.1:80 weight 20 # &lt;b&gt;``` | &lt;/b&gt;</span>');
    expect(html).toContain('<span class="del">-  server web1 127.0.0.1:80 weight 10</span>');
    expect(html).toContain('2026-12-02T00:31:05Z');
    expect(html).toContain('connect ECONNREFUSED 127.0.0.2:22');
    expect(html).toContain('with unsaved edits');
    expect(html).toContain('invalid: 1 error, 0 warnings');
  });

  it('Markdown: a diff fence longer than any in the diff, pipes escaped in tables, markup escaped in text', () => {
    const md = reportMarkdown(sample());
    expect(md.startsWith('# Change report: site \\<script\\>alert(1)\\</script\\>\n')).toBe(true);
    // A context line of the diff is ``` (a closing fence for ```): the block's fence is longer.
    expect(md).toContain('````diff\n--- a/etc/app.cfg');
    expect(md).toMatch(/\+ {2}server web1 127\.0\.0\.1:80 weight 20 # <b>``` \| <\/b>\n ```\n ok\n````/);
    // A table cell's value with a pipe does not split the cell.
    expect(md).toContain('| web | web2 | unavailable | 2026-12-02T00:30:00Z | connect refused \\| \\<i\\> |');
    expect(md).toContain("- `site-a.yaml:12:5` error: servers\\[0\\].address: must be an IP address, not \"a\\|b\\`c\"");
    expect(md).toContain('| **A push now** | changes the file: 1 line added, 1 removed |');
    expect(md).toContain('## Capacity\n\n- this change leaves web-vip with one member, web/web1:8081 (web/web2:8081 failed)\n');
    expect(reportMarkdown(sample({ capacity: [] }))).toContain('## Capacity\n\nEvery service and target set keeps two or more members.\n');
    expect(md).toContain('applied, confirmed 2026-12-01T23:01:00Z');
    expect(md).toContain('not the file the workspace renders now');
    expect(md).toContain('| **A push now** | could not be asked |');
    expect(md).toContain('merged onto the appliance\'s file: known once it is read');
    expect(md).toContain('| web-vip | 1 | 40 | 100 | 2000 | 1 | 0 |');
    expect(md).toContain('| **Lab** | running this workspace for 5 min: 3 available, 1 unavailable; 2 state changes |');
    expect(md).toContain('## Lab\n\nRunning this workspace for 5 min: 3 available, 1 unavailable; 2 state changes.\n');
  });

  it('Markdown: an underscore inside a word stays as it is, one at a word\'s edge is escaped', () => {
    const md = reportMarkdown(sample({ appliances: [{ ...sample().appliances[1]!, live: { state: 'unreachable', reason: 'no SSH_AUTH_SOCK; _private_ key' } }] }));
    expect(md).toContain('| **Why not asked** | no SSH_AUTH_SOCK; \\_private\\_ key |');
  });

  it('counts diff lines without the file headers', () => {
    expect(diffCounts(PATCH)).toEqual({ added: 1, removed: 1 });
    expect(diffCounts('')).toEqual({ added: 0, removed: 0 });
  });

  it('writes both files in reports/ beside the workspace; a second report in the same second gets its own name', async () => {
    writeFileSync(join(dir, 'site-a.yaml'), 'lbdesk: 1\n');
    expect(reportName('/x/site-a.yaml', Date.UTC(2026, 11, 2, 0, 31, 5))).toBe('site-a-change-20261202-003105Z');
    const one = await writeReport(sample());
    const two = await writeReport(sample());
    expect(one.htmlPath).toBe(join(dir, 'reports', 'site-a-change-20261202-003105Z.html'));
    expect(two.htmlPath).toBe(join(dir, 'reports', 'site-a-change-20261202-003105Z-2.html'));
    expect(readdirSync(join(dir, 'reports')).sort()).toEqual([
      'site-a-change-20261202-003105Z-2.html', 'site-a-change-20261202-003105Z-2.md', 'site-a-change-20261202-003105Z.html', 'site-a-change-20261202-003105Z.md',
    ]);
    expect(one.summary).toBe('site <script>alert(1)</script>: invalid (1 error); lb1 changes the file: 1 line added, 1 removed; lb2 could not be asked');
    expect(one.appliances).toEqual([{ name: 'lb1', says: 'changes the file: 1 line added, 1 removed', ok: true }, { name: 'lb2', says: 'could not be asked', ok: false }]);
  });
});
