// Which ripgrep agentd runs (tools/ripgrep.ts): the one it ships first, an rg on PATH first only with
// USE_BUILTIN_RIPGREP=0, the rg on PATH when the shipped one is missing, else none.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findRipgrep, ripgrepVersion, shippedRipgrep } from '../../../src/tools/ripgrep.js';
import { tempDir } from '../../support/daemon.js';

/** A PATH directory with a stand-in `rg`. */
function pathWithRg(): string {
  const dir = join(tempDir('agentd-rg-'), 'bin');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'rg'), '#!/bin/sh\necho "ripgrep 14.1.0"\n');
  chmodSync(join(dir, 'rg'), 0o755);
  return dir;
}

describe('findRipgrep', () => {
  it('the shipped rg comes from the platform package in node_modules, and runs (ripgrep 15.0.0)', async () => {
    const rg = await shippedRipgrep();
    expect(rg).toMatch(/\/node_modules\/@vscode\/ripgrep-linux-[a-z0-9]+\/bin\/rg$/);
    expect(await ripgrepVersion({ source: 'shipped', command: rg as string })).toBe('ripgrep 15.0.0 (rev 3a612f88b8)');
  });

  it('prefers the shipped one to an rg on PATH; USE_BUILTIN_RIPGREP=0 turns that round', async () => {
    const dir = pathWithRg();
    const shipped = await shippedRipgrep();
    expect(await findRipgrep({ preferSystem: false, path: dir })).toEqual({ source: 'shipped', command: shipped });
    expect(await findRipgrep({ preferSystem: true, path: dir })).toEqual({ source: 'system', command: join(dir, 'rg') });
    // Nothing on PATH: the shipped one, whatever the preference.
    expect(await findRipgrep({ preferSystem: true, path: '/nonexistent' })).toEqual({ source: 'shipped', command: shipped });
  });

  it('without the platform package (@vscode/ripgrep throws) or with a binary that is not executable: the rg on PATH, else none', async () => {
    const dir = pathWithRg();
    const missing = async (): Promise<{ rgPath: string }> => {
      throw new Error('Could not find @vscode/ripgrep-linux-x64. Ensure optionalDependencies are installed for this platform (linux-x64).');
    };
    const plain = join(tempDir('agentd-rg-'), 'rg');
    writeFileSync(plain, 'not a program');
    const notExecutable = async () => ({ rgPath: plain });
    for (const load of [missing, notExecutable]) {
      expect(await findRipgrep({ preferSystem: false, path: dir }, load)).toEqual({ source: 'system', command: join(dir, 'rg') });
      expect(await findRipgrep({ preferSystem: false, path: '/nonexistent' }, load)).toBeUndefined();
      expect(await findRipgrep({ preferSystem: false, path: undefined }, load)).toBeUndefined();
    }
  });

  it('a binary that does not run has no version', async () => {
    expect(await ripgrepVersion({ source: 'system', command: '/nonexistent/rg' })).toBeUndefined();
  });
});
