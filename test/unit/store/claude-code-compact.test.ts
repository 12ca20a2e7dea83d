// A transcript Claude Code 2.1.330 wrote around a /compact (fixtures/claude-code-2.1.330-compact.jsonl, captured by
// test/measure/compact-capture.measure.ts; request logs dropped and attachments trimmed): the boundary starts a
// new chain and the summary entry is marked transcript-only, yet resume continues from the summary — and so does
// agentd's own transcript of a compaction.
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiMessage } from '../../../src/model/types.js';
import { projectDir } from '../../../src/store/paths.js';
import { loadSession } from '../../../src/store/session-store.js';
import { type TempProject, openTest, prompt, tempProject } from './support.js';

const ID = '40ade67c-bd45-43dc-bead-f541e9ae1d69';
const FIXTURE = new URL('./fixtures/claude-code-2.1.330-compact.jsonl', import.meta.url);

let p: TempProject;
beforeEach(() => {
  p = tempProject();
});
afterEach(() => p.cleanup());

const text = (m: ApiMessage | undefined): string => (m === undefined ? '' : typeof m.content === 'string' ? m.content : m.content.map((b) => ('text' in b ? String(b.text) : '')).join('|'));

describe('resuming after a compaction', () => {
  it("Claude Code's transcript: the history starts from the summary, the turns before it are gone", () => {
    const dir = projectDir(p.root, p.cwd);
    mkdirSync(dir, { recursive: true });
    copyFileSync(FIXTURE, join(dir, `${ID}.jsonl`));
    const loaded = loadSession(p.root, p.cwd, ID);
    expect(loaded.warnings).toEqual([]);
    expect(loaded.history.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(text(loaded.history[0])).toMatch(/^This session is being continued from a previous conversation[\s\S]*Summary:\nSUMMARY-TEXT2\n[\s\S]*\|after compaction$/);
    expect(text(loaded.history[1])).toBe('fallback answer');
    expect(readFileSync(FIXTURE, 'utf8')).toContain('"first message"'); // …which the file still holds
  });

  it("agentd's own: boundary and summary recorded by the thread's recorder are what a resume starts from", () => {
    const s = openTest(p, {});
    s.recorder.record(prompt('old turn', { uuid: 'a1' }));
    s.recorder.record({ type: 'compact_boundary', uuid: 'b1', trigger: 'manual', preTokens: 100, postTokens: 10, durationMs: 5 });
    s.recorder.record({ type: 'compact_summary', uuid: 's1', text: 'Summary:\nS' });
    s.recorder.record(prompt('new turn', { uuid: 'a2' }));
    s.recorder.close();
    const lines = readFileSync(s.transcriptPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.find((l) => l['uuid'] === 'b1')).toMatchObject({ type: 'system', subtype: 'compact_boundary', parentUuid: null, logicalParentUuid: 'a1', compactMetadata: { trigger: 'manual', preTokens: 100, postTokens: 10, durationMs: 5 } });
    expect(lines.find((l) => l['uuid'] === 's1')).toMatchObject({ type: 'user', parentUuid: 'b1', isCompactSummary: true, isVisibleInTranscriptOnly: true });
    expect(loadSession(p.root, p.cwd, s.sessionId).history).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Summary:\nS' }, { type: 'text', text: 'new turn' }] }]);
  });
});
