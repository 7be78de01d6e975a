// A change report as Markdown and as one self-contained HTML file (no script, nothing loaded
// from anywhere), both from the same blocks.
import type { ChangeReport } from '../../../shared/api/report';
import { reportBlocks, type Block, type Inline } from './blocks';

// ---- Markdown

/** A code span that holds any backticks: fenced by a longer run, padded when it starts or ends with one. */
function mdCode(s: string): string {
  const longest = Math.max(0, ...(s.match(/`+/g) ?? []).map((m) => m.length));
  const fence = '`'.repeat(longest + 1);
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}
// `_` inside a word (SSH_AUTH_SOCK) is no emphasis in GFM: escaped only at a word's edge.
const mdText = (s: string) => s.replace(/([\\`*[\]<>|#])/g, '\\$1').replace(/(^|[^A-Za-z0-9])_|_(?![A-Za-z0-9])/g, (m) => m.replace('_', '\\_')).replace(/\r?\n/g, ' ');
/** In a table cell a `|` ends the cell even inside a code span (GFM): escaped there. */
const mdInline = (parts: Inline, cell = false) => parts
  .map((p) => (typeof p === 'string' ? mdText(p) : 'warn' in p ? `**${mdText(p.warn)}**` : mdCode(p.code.replace(/\r?\n/g, ' ').replace(/\|/g, cell ? '\\|' : '|'))))
  .join('');

function mdBlock(b: Block): string {
  if ('heading' in b) return `${'#'.repeat(b.heading)} ${mdText(b.text)}`;
  if ('facts' in b) return ['| | |', '|---|---|', ...b.facts.map(([k, v]) => `| **${mdText(k)}** | ${mdInline(v, true)} |`)].join('\n');
  if ('para' in b) return mdInline(b.para);
  if ('list' in b) return b.list.map((i) => `- ${mdInline(i)}`).join('\n');
  if ('diff' in b) {
    // A line of 3+ backticks (indented up to 3 spaces, as a diff's context line is) would close a shorter fence.
    const fence = '`'.repeat(Math.max(3, ...(b.diff.match(/^ {0,3}`{3,}/gm) ?? []).map((m) => m.trim().length + 1)));
    return `${fence}diff\n${b.diff.replace(/\n$/, '')}\n${fence}`;
  }
  const { head, rows } = b.table;
  return [`| ${head.map(mdText).join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map((c) => mdInline(c, true)).join(' | ')} |`)].join('\n');
}

export function reportMarkdown(r: ChangeReport): string {
  return `${reportBlocks(r).map(mdBlock).join('\n\n')}\n`;
}

// ---- HTML

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const htmlInline = (parts: Inline) => parts.map((p) => (typeof p === 'string' ? esc(p) : 'warn' in p ? `<strong class="${p.bad ? 'bad' : 'warn'}">${esc(p.warn)}</strong>` : `<code>${esc(p.code)}</code>`)).join('');

function diffLine(l: string): string {
  const kind = l.startsWith('+++') || l.startsWith('---') ? 'file' : l.startsWith('@@') ? 'hunk' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : '';
  return kind ? `<span class="${kind}">${esc(l)}</span>` : esc(l);
}

function htmlBlock(b: Block): string {
  if ('heading' in b) return `<h${b.heading}>${esc(b.text)}</h${b.heading}>`;
  if ('facts' in b) return `<table class="facts">${b.facts.map(([k, v]) => `<tr><th>${esc(k)}</th><td>${htmlInline(v)}</td></tr>`).join('')}</table>`;
  if ('para' in b) return `<p>${htmlInline(b.para)}</p>`;
  if ('list' in b) return `<ul>${b.list.map((i) => `<li>${htmlInline(i)}</li>`).join('')}</ul>`;
  if ('diff' in b) return `<pre class="diff">${b.diff.replace(/\n$/, '').split('\n').map(diffLine).join('\n')}</pre>`;
  const { head, rows } = b.table;
  return `<table class="grid"><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${htmlInline(c)}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
}

const STYLE = `body{font:14px/1.45 system-ui,sans-serif;max-width:1100px;margin:24px auto;padding:0 16px;color:#1b1f24}
h1{font-size:22px}h2{font-size:18px;margin-top:28px;border-bottom:1px solid #d0d7de}h3{font-size:15px;margin-top:20px}
code,pre{font:12.5px/1.4 ui-monospace,Consolas,monospace}code{overflow-wrap:anywhere}
table{border-collapse:collapse;margin:8px 0}th,td{text-align:left;vertical-align:top;padding:3px 10px 3px 0}
.grid th,.grid td{border-bottom:1px solid #d0d7de;padding:3px 8px}.facts th{white-space:nowrap;color:#57606a;font-weight:600}
pre.diff{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;overflow-x:auto;white-space:pre}
.add{background:#dafbe1;display:inline-block;min-width:100%}.del{background:#ffebe9;display:inline-block;min-width:100%}
.hunk{color:#0550ae}.file{color:#57606a}.warn{color:#9a6700}.bad{color:#cf222e}
@media print{pre.diff{white-space:pre-wrap}}`;

export function reportHtml(r: ChangeReport): string {
  const blocks = reportBlocks(r);
  const title = blocks[0] as { text: string };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="generator" content="lbdesk ${esc(r.version)}">
<title>${esc(title.text)}</title>
<style>${STYLE}</style>
</head>
<body>
${blocks.map(htmlBlock).join('\n')}
</body>
</html>
`;
}
