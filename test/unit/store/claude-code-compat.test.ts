// A transcript written by the real Claude Code 2.1.330 (fixtures/claude-code-2.1.330.jsonl: one prompt, a text
// block and two parallel tool calls, then an answer; attachments and metadata lines trimmed of their bulk).
// Claude Code parents each tool result to its own tool_use entry, so one result hangs off the main chain.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { getSessionMessages } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { projectDir } from '../../../src/store/paths.js';
import { loadSession } from '../../../src/store/session-store.js';
import { type TempProject, openTest, prompt, tempProject } from './support.js';

const ID = '522250ad-22eb-4071-837c-6f2e91f803c4';
const FIXTURE = new URL('./fixtures/claude-code-2.1.330.jsonl', import.meta.url);

let p: TempProject;
beforeEach(() => {
  p = tempProject();
  const dir = projectDir(p.root, p.cwd);
  mkdirSync(dir, { recursive: true });
  copyFileSync(FIXTURE, join(dir, `${ID}.jsonl`));
});
afterEach(() => {
  vi.unstubAllEnvs();
  p.cleanup();
});

const HISTORY = [
  { role: 'user', content: 'please read a.txt' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'I will read both.' },
      { type: 'tool_use', id: 'toolu_01A', name: 'Read', input: { file_path: '/home/user/project/a.txt' } },
      { type: 'tool_use', id: 'toolu_01B', name: 'Bash', input: { command: 'sleep 0.3; echo hi', description: 'echo' } },
    ],
  },
  {
    role: 'user',
    content: [
      { tool_use_id: 'toolu_01A', type: 'tool_result', content: '1\tfile a\n2\t' },
      { tool_use_id: 'toolu_01B', type: 'tool_result', content: 'hi', is_error: false },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'Both done.' }] },
];

describe('a Claude Code transcript', () => {
  it('is resumed with the off-chain tool result recovered, attachments and metadata skipped', () => {
    const loaded = loadSession(p.root, p.cwd, ID);
    expect(loaded).toMatchObject({ warnings: [], tailRepairs: [], lastUuid: 'b35d222b-d5d3-4b9e-b789-39feda5ab48d', modelUsage: {} });
    expect(loaded.history).toEqual(HISTORY);
  });

  it('takes agentd entries appended to it, and the SDK reads both', async () => {
    const s = openTest(p, { resume: ID });
    s.recorder.record(prompt('follow-up', { uuid: 'agentd-1' }));
    s.recorder.close();
    expect(loadSession(p.root, p.cwd, ID).history).toEqual([...HISTORY, { role: 'user', content: 'follow-up' }]);
    const replay = await getSessionMessages(ID, { dir: p.cwd });
    expect(replay.map((m) => m.type)).toEqual(['user', 'assistant', 'assistant', 'assistant', 'user', 'user', 'assistant', 'user']);
    expect(replay.at(-1)).toMatchObject({ uuid: 'agentd-1', message: { role: 'user', content: 'follow-up' } });
  });

  it('forks into a session agentd can resume', () => {
    const s = openTest(p, { resume: ID, fork: true });
    s.recorder.close();
    expect(loadSession(p.root, p.cwd, s.sessionId).history).toEqual(HISTORY);
  });
});
