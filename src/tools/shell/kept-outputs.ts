// Full outputs kept on disk (a cut Bash output's file, named in its result as persistedOutputPath) are bounded
// per process: past the budget, the oldest files are removed. Without a bound a session that runs many big
// commands fills TMPDIR (200 runs of a 50 MB command leave 10 GB). The model was given each path; one removed
// since simply reads as "no such file". The newest file always stays, whatever its size.
import { rmSync } from 'node:fs';

export const DEFAULT_KEPT_OUTPUT_BYTES = 2 * 1024 ** 3;
/** A command whose output file grows past this is stopped (a runaway `yes` would otherwise fill the disk). */
export const DEFAULT_MAX_OUTPUT_FILE_BYTES = 1024 ** 3;

export class KeptOutputs {
  private readonly files: Array<{ path: string; bytes: number }> = [];
  private total = 0;

  constructor(readonly budgetBytes: number = DEFAULT_KEPT_OUTPUT_BYTES) {}

  get totalBytes(): number {
    return this.total;
  }

  /** Records a kept file; removes the oldest ones while the total is over the budget. */
  add(path: string, bytes: number): void {
    this.files.push({ path, bytes });
    this.total += bytes;
    while (this.total > this.budgetBytes && this.files.length > 1) {
      const oldest = this.files.shift();
      if (!oldest) break;
      rmSync(oldest.path, { force: true });
      this.total -= oldest.bytes;
    }
  }
}
