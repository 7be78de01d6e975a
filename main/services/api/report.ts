// The report area: a change report of the open workspace (the text on screen), written beside it.
import { checkReadableWorkspace, checkWorkspaceText } from '../files/guard';
import { readWorkspaceText } from '../workspace';
import type { Lab } from '../lab';
import { ApiError } from '../../../shared/api/contract';
import { collectReport, UnknownAppliances, writeReport } from '../report';
import { syncDataDir } from '../sync';
import { applianceAccess, type ApplianceDeps } from './appliances';
import type { AreaHandlers } from './dispatch';

export function reportHandlers(deps: ApplianceDeps, lab: Lab): AreaHandlers<'report'> {
  const { ssh } = applianceAccess(deps);
  return {
    'report.export': async ({ offline, appliances, ...src }) => {
      // The file must exist, unsaved text or not: the report goes beside it, and says whether the text on screen is the file's.
      const path = await checkReadableWorkspace(src.path);
      // The file on disk is read (the report says whether the text on screen is the file's) and
      // the report goes beside it: only a workspace, like every other handler that reads one.
      const onDisk = await readWorkspaceText(path).catch((e: unknown) => {
        throw new ApiError('refused', e instanceof Error ? e.message : String(e));
      });
      checkWorkspaceText(onDisk.text, path);
      const report = await collectReport({
        path,
        ...(src.text !== undefined ? { text: src.text } : {}),
        ...(appliances ? { appliances } : {}),
        ask: offline !== true,
        read: { ...ssh(), dataDir: deps.dataDir },
        historyDir: syncDataDir(deps.dataDir),
        lab: (() => {
          const session = lab.session();
          return { status: lab.status(), changes: session.changes.length, latest: session.latest };
        })(),
      }).catch((err: unknown) => {
        throw err instanceof UnknownAppliances ? new ApiError('not-found', err.message) : err;
      });
      return writeReport(report);
    },
  };
}
