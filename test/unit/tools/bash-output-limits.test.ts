// Disk bounds of Bash output: a command whose output passes AGENTD_MAX_OUTPUT_FILE_BYTES is stopped, and the
// full outputs kept for cut results stay within AGENTD_MAX_KEPT_OUTPUT_BYTES (oldest removed first).
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/tools/builtin/bash.js';
import { KeptOutputs } from '../../../src/tools/shell/kept-outputs.js';
import { positiveNumber } from '../../../src/util/env.js';
import { type BashHarness, bashHarness, groupGone } from './bash-fixture.js';

describe('KeptOutputs', () => {
  it('removes the oldest files past the budget and always keeps the newest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agentd-kept-'));
    const files = ['a', 'b', 'c', 'd'].map((n) => join(dir, n));
    for (const f of files) writeFileSync(f, 'x');
    const kept = new KeptOutputs(250);
    kept.add(files[0] as string, 100);
    kept.add(files[1] as string, 100);
    expect(files.map((f) => existsSync(f))).toEqual([true, true, true, true]);
    kept.add(files[2] as string, 100);
    expect(files.map((f) => existsSync(f))).toEqual([false, true, true, true]);
    expect(kept.totalBytes).toBe(200);
    kept.add(files[3] as string, 1000);
    expect(files.map((f) => existsSync(f))).toEqual([false, false, false, true]);
    expect(kept.totalBytes).toBe(1000);
  });

  it('reads its limits from the environment, positive numbers only', () => {
    const bytesFromEnv = (v: string | undefined, fallback: number): number => positiveNumber(v) ?? fallback;
    expect([bytesFromEnv('1000', 7), bytesFromEnv(undefined, 7), bytesFromEnv('0', 7), bytesFromEnv('-5', 7), bytesFromEnv('1e3x', 7)]).toEqual([1000, 7, 7, 7, 7]);
  });
});

describe('Bash output limits', () => {
  let h: BashHarness | undefined;
  afterEach(async () => {
    await h?.cleanup();
    h = undefined;
  });

  it('keeps the full outputs of cut results within the kept budget, oldest removed first', async () => {
    h = bashHarness({ env: { AGENTD_MAX_KEPT_OUTPUT_BYTES: '300000' } });
    const bash = createBashTool();
    const paths: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await bash.call({ command: `head -c 200000 /dev/zero | tr '\\0' '${i}'` }, h.ctx());
      const data = r.data as { persistedOutputPath?: string; persistedOutputSize?: number };
      expect(data.persistedOutputSize).toBe(200000);
      paths.push(data.persistedOutputPath as string);
    }
    expect(paths.map((p) => existsSync(p))).toEqual([false, false, true]);
  });

  it('stops a command whose output passes the per-command limit, and kills its group', async () => {
    h = bashHarness({ env: { AGENTD_MAX_OUTPUT_FILE_BYTES: '200000' } });
    const bash = createBashTool({ killGraceMs: 500 });
    const r = await bash.call({ command: 'while :; do echo aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa; done' }, h.ctx());
    const data = r.data as { stderr: string; interrupted: boolean; persistedOutputSize?: number };
    expect(r.isError).toBe(true);
    expect(data.interrupted).toBe(true);
    expect(data.stderr).toBe('Command stopped: its output passed 200000 bytes (AGENTD_MAX_OUTPUT_FILE_BYTES)\n<error>Command was aborted before completion</error>');
    expect(data.persistedOutputSize).toBeGreaterThan(200000);
    await groupGone(h.groups[0] as number, 2000);
  });
});
