// Facts about the machine and the project for the prompt's environment section: whether the working directory
// is in a git repository (a `.git` directory or file in it or a parent) and the OS version.
import { stat as statCb } from 'node:fs';
import { release, type } from 'node:os';
import { promisify } from 'node:util';
import { ancestors } from './memory.js';

// Not node:fs/promises: see read-text.ts.
const stat = promisify(statCb);

export async function isGitRepository(cwd: string): Promise<boolean> {
  const dirs = ancestors(cwd).reverse();
  const found = await Promise.all(dirs.map((d) => stat(`${d}/.git`).then(() => true, () => false)));
  return found.includes(true);
}

export function osVersion(): string {
  return `${type()} ${release()}`;
}
