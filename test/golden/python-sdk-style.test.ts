// The Python SDK's way of driving the CLI (protocol.md §2.3, §4.1): two-token flags, `--system-prompt ""`,
// an empty `--setting-sources`, `hooks: null`, string content and `session_id: "default"`, stdin closed right
// after the prompt, replayed frame by frame. (The real Python SDK drives agentd in test/e2e/python-sdk.test.ts.)
import { describe, expect, it } from 'vitest';
import { initializeFrame, startDaemon } from '../support/daemon.js';

describe('Python SDK style', () => {
  it('serves a query() the way claude-agent-sdk for Python sends it', async () => {
    const d = startDaemon({
      args: ['--output-format', 'stream-json', '--verbose', '--system-prompt', '', '--setting-sources', '', '--permission-mode', 'default', '--scenario', 'builtin:echo', '--input-format', 'stream-json'],
    });
    d.send({ ...(initializeFrame('req_1_abcd1234') as object), request: { subtype: 'initialize', hooks: null } });
    d.send({ type: 'user', session_id: 'default', message: { role: 'user', content: 'hello from python' }, parent_tool_use_id: null });
    d.endInput();
    expect((await d.exited).code).toBe(0);
    expect(d.tap.frames.map((f) => f['type'])).toEqual(['control_response', 'system', 'assistant', 'result']);
    expect(d.tap.frames.at(-1)).toMatchObject({ subtype: 'success', result: 'hello from python' });
    // Python's parser requires uuid and session_id on result frames, and raises on any stdout line over 1 MiB.
    expect(d.tap.frames.every((f) => typeof f['uuid'] === 'string' || f['type'] === 'control_response')).toBe(true);
  });
});
