// The layering rules are real: ESLint refuses each forbidden import at its place.
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli';

const eslint = new ESLint({ cwd: ROOT });
async function ruleHits(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${file}` });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layering lint', () => {
  it.each([
    ['shared/model/x.ts', "import { dataDir } from '../../main/services/paths';\nexport const y = dataDir;\n"],
    ['shared/model/x.ts', "import { readFileSync } from 'node:fs';\nexport const y = readFileSync;\n"],
    ['shared/api/x.ts', "import { useApi } from '../../renderer/src/api/inject';\nexport const y = useApi;\n"],
    ['main/services/x/y.ts', "import { app } from 'electron';\nexport const y = app;\n"],
    ['main/services/x/y.ts', "import { bindIpc } from '../../app/ipc';\nexport const y = bindIpc;\n"],
    ['main/cli/x.ts', "import { ipcMain } from 'electron';\nexport const y = ipcMain;\n"],
    ['renderer/src/x.ts', "import { dataDir } from '../../main/services/paths';\nexport const y = dataDir;\n"],
    ['renderer/src/x.ts', "import { readFileSync } from 'fs';\nexport const y = readFileSync;\n"],
  ])('refuses %s importing %j', async (file, code) => {
    expect(await ruleHits(file, code)).not.toEqual([]);
  });

  it.each([
    ['main/app/x.ts', "import { app } from 'electron';\nexport const y = app;\n"],
    ['main/services/x/y.ts', "import { readFileSync } from 'node:fs';\nexport const y = readFileSync;\n"],
    ['renderer/src/x.ts', "import { contract } from '../../shared/api/contract';\nexport const y = contract;\n"],
  ])('allows %s importing %j', async (file, code) => {
    expect(await ruleHits(file, code)).toEqual([]);
  });
});
