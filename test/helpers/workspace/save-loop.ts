// Child process for the kill-during-save test: saves two versions of a workspace in turn,
// forever, until it is killed. Usage: save-loop TARGET VERSION_A VERSION_B
// Every other pair of saves skips the YAML check and goes straight to the atomic writer, so
// more kills land in the middle of writing.
import { readFileSync } from 'node:fs';
import { saveWorkspaceText } from '../../../main/services/workspace/store';
import { writeFileAtomic } from '../../../main/services/workspace/atomic';

async function main(): Promise<void> {
  const [target, a, b] = process.argv.slice(2);
  const texts = [readFileSync(a!, 'utf8'), readFileSync(b!, 'utf8')];
  process.stdout.write('ready\n');
  for (let n = 0; ; n++) {
    const text = texts[n % 2]!;
    if (n % 4 >= 2) await saveWorkspaceText(target!, text);
    else await writeFileAtomic(target!, text, { backup: true });
    process.stdout.write(`saved ${n + 1}\n`);
  }
}

void main();
