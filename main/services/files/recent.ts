// Most-recently-used workspace files, newest first, kept in the data folder.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

const LIMIT = 12;

export class RecentFiles {
  private readonly file: string;
  constructor(dataDir: string) {
    this.file = join(dataDir, 'recent.json');
  }
  async list(): Promise<string[]> {
    try {
      const parsed: unknown = JSON.parse(await readFile(this.file, 'utf8'));
      return Array.isArray(parsed) ? parsed.filter((p): p is string => typeof p === 'string') : [];
    } catch {
      return [];
    }
  }
  async add(path: string): Promise<void> {
    const next = [path, ...(await this.list()).filter((p) => p !== path)].slice(0, LIMIT);
    await mkdir(dirname(this.file), { recursive: true });
    await writeFile(this.file, `${JSON.stringify(next, null, 2)}\n`);
  }
}
