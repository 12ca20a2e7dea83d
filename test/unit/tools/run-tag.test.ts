// The run tag: every process agentd starts carries it (AGENTD_RUN_ID), so processes that left their process
// group can still be found at exit by scanning /proc (src/tools/process-groups.ts).
import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_TAG_VAR, taggedProcesses, withRunTag } from '../../../src/tools/process-groups.js';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

function sleeper(env: Record<string, string>): number {
  const c = spawn('sleep', ['30'], { env, stdio: 'ignore' });
  c.unref();
  started.push(c.pid as number);
  return c.pid as number;
}

describe('run tags', () => {
  it('withRunTag appends to the tags of agentds further up', () => {
    expect(withRunTag({ PATH: '/bin' }, 'abc')).toEqual({ PATH: '/bin', [RUN_TAG_VAR]: 'abc' });
    expect(withRunTag({ [RUN_TAG_VAR]: 'outer' }, 'inner')).toEqual({ [RUN_TAG_VAR]: 'outer,inner' });
  });

  it('taggedProcesses finds live processes carrying the tag (alone or among others), and only those', async () => {
    const path = process.env['PATH'] ?? '/usr/bin:/bin';
    const mine = sleeper({ PATH: path, [RUN_TAG_VAR]: 'tag-one' });
    const nested = sleeper({ PATH: path, [RUN_TAG_VAR]: 'outer,tag-one' });
    const other = sleeper({ PATH: path, [RUN_TAG_VAR]: 'tag-one-not' });
    const none = sleeper({ PATH: path });
    const found = taggedProcesses('tag-one');
    expect([mine, nested].every((p) => found.includes(p))).toBe(true);
    expect([other, none].some((p) => found.includes(p))).toBe(false);
    expect(taggedProcesses('outer')).toEqual([nested]);
  });
});
