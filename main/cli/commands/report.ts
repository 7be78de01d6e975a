// `lbdesk report WS`: a change report for a ticket — the workspace's hash and validation, per
// appliance what a push changes now (asked over SSH, nothing pushed) and the last push, as HTML
// and Markdown in `reports/` beside WS. Exit 0 written, 1 written but the workspace is invalid,
// 2 usage or nothing could be written.
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { collectReport, reportHtml, reportMarkdown, UnknownAppliances, writeReport } from '../../services/report';
import { syncDataDir } from '../../services/sync';
import { CliError, writeFailure } from '../errors';
import { sshOptionsFrom, withSshOptions, type SshCliOptions } from '../sync-options';

interface ReportOptions extends SshCliOptions {
  offline?: boolean;
  outDir?: string;
  print?: 'md' | 'html' | 'json';
}

export function register(program: Command): void {
  const cmd = program
    .command('report')
    .description('write a change report (workspace hash, validation, per appliance the diff a push makes and the last push) as HTML and Markdown in reports/ beside the workspace')
    .argument('<workspace>', 'workspace file');
  withSshOptions(cmd, false)
    .option('--offline', 'do not contact the appliances, nor the members (whose TLS certificates a report otherwise checks): the report says what this machine knows')
    .option('--out-dir <dir>', 'write the two files here instead of reports/ beside the workspace')
    .option('--print <format>', 'print the report on stdout (md, html or json) and write no file')
    .action(async (file: string, o: ReportOptions) => {
      if (o.print !== undefined && !['md', 'html', 'json'].includes(o.print)) throw new CliError(`--print takes md, html or json, not "${o.print}"`, 2);
      const path = resolve(file);
      await access(path).catch(() => {
        throw new CliError(`cannot read ${file}: no such file or not readable`, 2);
      });
      const report = await collectReport({
        path,
        ...(o.appliance?.length ? { appliances: o.appliance } : {}),
        ask: o.offline !== true,
        read: sshOptionsFrom(o),
        historyDir: syncDataDir(undefined),
      }).catch((err: unknown) => {
        if (err instanceof UnknownAppliances) throw new CliError(`no appliance ${err.names.map((n) => `"${n}"`).join(', ')} in ${file}`, 2);
        throw err;
      });
      if (o.print) {
        process.stdout.write(o.print === 'json' ? `${JSON.stringify(report, null, 2)}\n` : o.print === 'html' ? reportHtml(report) : reportMarkdown(report));
      } else {
        const written = await writeReport(report, o.outDir ? resolve(o.outDir) : undefined).catch((err: unknown) => {
          throw new CliError(`cannot write the report: ${writeFailure(err)}`, 2);
        });
        process.stdout.write(`${written.summary}\n${written.htmlPath}\n${written.markdownPath}\n`);
      }
      process.exitCode = report.validation.errors ? 1 : 0;
    });
}
