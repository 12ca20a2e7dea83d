// Where a program would be found on a PATH value: the first executable regular file named `name`.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findOnPath(name: string, path: string | undefined): string | undefined {
  for (const dir of (path ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      if (statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return undefined;
}
