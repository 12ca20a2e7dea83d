// The thread: appending a message records it in the same call; a compaction replaces the thread with its summary
// and records a boundary, and a resume rebuilds exactly the compacted thread.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadSession } from '../../../src/store/session-store.js';
import type { RecordedEvent } from '../../../src/thread/recorder.js';
import { Thread } from '../../../src/thread/thread.js';
import { type TempProject, openTest, tempProject } from '../store/support.js';

let project: TempProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
  vi.unstubAllEnvs();
});

describe('Thread', () => {
  it('records every message it appends, in the same call', () => {
    const recorded: RecordedEvent[] = [];
    let n = 0;
    const t = new Thread({ recorder: { record: (e) => void recorded.push(e), flush: async () => undefined }, newUuid: () => `u${++n}` });
    t.appendUser('hi', { uuid: 'p1', isSynthetic: false });
    t.appendRound([{ type: 'text', text: 'hello' }], []);
    t.appendUserText('m1', '[Request interrupted by user]');
    expect(recorded).toEqual([
      { type: 'user_prompt', uuid: 'p1', content: 'hi', isSynthetic: false },
      { type: 'user_text', uuid: 'm1', text: '[Request interrupted by user]' },
    ]);
    expect(t.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'hello' }] },
      { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
    ]);
  });

  it('a compaction leaves the summary in place of the old turns; the transcript has a boundary and a resume continues from the summary', async () => {
    project = tempProject();
    const opened = openTest(project);
    const t = new Thread({ recorder: opened.recorder, newUuid: randomUUID });
    t.appendUser('first question', { isSynthetic: false });
    t.record({ type: 'assistant_block', uuid: randomUUID(), meta: { id: 'msg_1', model: 'm', usage: { input_tokens: 1, output_tokens: 1 }, requestId: undefined }, block: { type: 'text', text: 'first answer' } });
    t.appendRound([{ type: 'text', text: 'first answer' }], []);
    t.replaceWithSummary({
      boundary: { uuid: randomUUID(), trigger: 'manual', preTokens: 1234, postTokens: 20, durationMs: 3 },
      summary: { uuid: randomUUID(), text: 'Summary: the user asked a first question and got a first answer.' },
    });
    t.appendUser('second question', { isSynthetic: false });
    expect(t.forRequest()).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Summary: the user asked a first question and got a first answer.' },
          { type: 'text', text: 'second question', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
    await t.flush();
    opened.recorder.close();

    const lines = readFileSync(opened.transcriptPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    const boundary = lines.find((l) => l['subtype'] === 'compact_boundary');
    expect(boundary).toMatchObject({ type: 'system', parentUuid: null, content: 'Conversation compacted', compactMetadata: { trigger: 'manual', preTokens: 1234, postTokens: 20, durationMs: 3 } });
    expect(lines.find((l) => l['isCompactSummary'] === true)).toMatchObject({ type: 'user', parentUuid: boundary?.['uuid'], isVisibleInTranscriptOnly: true });

    const resumed = loadSession(project.root, project.cwd, opened.sessionId);
    expect(resumed.history).toEqual(t.messages);
  });

  it('rewind goes back to a mark: a prompt merged into the message before it is taken out again, and the transcript records the rewind', () => {
    const recorded: RecordedEvent[] = [];
    let n = 0;
    const t = new Thread({ recorder: { record: (e) => void recorded.push(e), flush: async () => undefined }, newUuid: () => `u${++n}` });
    t.appendUser('context', { uuid: 'c1', isSynthetic: true });
    const before = t.mark();
    t.appendUser('a prompt too long', { uuid: 'p1', isSynthetic: false });
    t.record({ type: 'assistant_block', uuid: 'e1', meta: { id: 'msg_error', model: '<synthetic>', usage: { input_tokens: 0, output_tokens: 0 }, requestId: undefined }, block: { type: 'text', text: 'Prompt is too long' }, error: 'invalid_request' });
    t.rewind(before, 'prompt_too_long');
    t.appendUser('a short one', { uuid: 'p2', isSynthetic: false });
    expect(t.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'context' }, { type: 'text', text: 'a short one' }] }]);
    expect(recorded.map((e) => [e.type, e.uuid, e.type === 'rewind' ? e.to : undefined])).toEqual([
      ['user_prompt', 'c1', undefined],
      ['user_prompt', 'p1', undefined],
      ['assistant_block', 'e1', undefined],
      ['rewind', 'u1', 'c1'],
      ['user_prompt', 'p2', undefined],
    ]);
  });

  it('a mark from before a compaction rewinds only to the summary; a resume rebuilds the rewound thread', async () => {
    project = tempProject();
    const opened = openTest(project);
    const t = new Thread({ recorder: opened.recorder, newUuid: randomUUID });
    t.appendUser('first question', { isSynthetic: false });
    t.appendRound([{ type: 'text', text: 'first answer' }], []);
    const before = t.mark();
    t.appendUser('second question', { isSynthetic: false });
    t.replaceWithSummary({
      boundary: { uuid: randomUUID(), trigger: 'auto', preTokens: 1234, postTokens: 20, durationMs: 3 },
      summary: { uuid: randomUUID(), text: 'Summary of both questions.' },
    });
    t.appendRound([{ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/huge' } }], [{ block: { type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' }, additionalContext: [] }]);
    t.rewind(before, 'prompt_too_long');
    expect(t.messages).toEqual([{ role: 'user', content: 'Summary of both questions.' }]);
    t.appendUser('third question', { isSynthetic: false });
    await t.flush();
    opened.recorder.close();
    expect(loadSession(project.root, project.cwd, opened.sessionId).history).toEqual(t.messages);
  });
});
