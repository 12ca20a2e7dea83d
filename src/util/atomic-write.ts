// Replacing a small file whole: written beside it, then renamed over it, so a reader (or a crash) never sees half a
// file. The temporary file is removed when anything fails, and the error is rethrown.
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export function writeFileAtomic(path: string, text: string, mode?: number): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.agentd-${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text, mode === undefined ? undefined : { mode });
    // The mode as asked, whatever the umask.
    if (mode !== undefined) chmodSync(tmp, mode);
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
