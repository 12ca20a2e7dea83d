import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { forkSession as sdkForkSession, getSessionMessages } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ApiMessage } from '../../../src/model/types.js';
import { SessionLoadError } from '../../../src/store/errors.js';
import { CUT_BY_RESUME_AT, KILLED_MID_TOOL } from '../../../src/store/history.js';
import { projectDir } from '../../../src/store/paths.js';
import { findLatestSession, loadSession } from '../../../src/store/session-store.js';
import { type TempProject, block, marker, memoryLogger, openTest, prompt, result, tempProject, text, toolUse } from './support.js';

let p: TempProject;
beforeEach(() => {
  p = tempProject();
});
afterEach(() => {
  vi.unstubAllEnvs();
  p.cleanup();
});

/** One tool turn and one plain turn; returns the session id, its file and the uuids that matter. */
function writeTwoTurns(): { id: string; path: string; firstAnswer: string; secondPrompt: string } {
  const s = openTest(p);
  const r = s.recorder;
  r.record(prompt('read both files', { uuid: 'u1' }));
  r.record(block('msg_1', text('Reading.'), { uuid: 'a1' }));
  r.record(block('msg_1', toolUse('toolu_a'), { uuid: 'a2' }));
  r.record(result('toolu_a', 'A', { uuid: 'ra' })); // a result can land between the blocks of its message
  r.record(block('msg_1', toolUse('toolu_b'), { uuid: 'a3' }));
  r.record(result('toolu_b', 'B', { uuid: 'rb' }));
  r.record(block('msg_2', text('Both read.'), { uuid: 'a4' }));
  r.record(prompt('and now?', { uuid: 'u2' }));
  r.record(block('msg_3', text('Nothing more.'), { uuid: 'a5' }));
  r.close();
  return { id: s.sessionId, path: s.transcriptPath, firstAnswer: 'a4', secondPrompt: 'u2' };
}

const TWO_TURNS: ApiMessage[] = [
  { role: 'user', content: 'read both files' },
  { role: 'assistant', content: [{ type: 'text', text: 'Reading.' }, toolUseBlock('toolu_a'), toolUseBlock('toolu_b')] },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_a', content: 'A' },
      { type: 'tool_result', tool_use_id: 'toolu_b', content: 'B' },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'Both read.' }] },
  { role: 'user', content: 'and now?' },
  { role: 'assistant', content: [{ type: 'text', text: 'Nothing more.' }] },
];

function toolUseBlock(id: string): { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> } {
  return { type: 'tool_use', id, name: 'Read', input: { file_path: `/tmp/${id}` } };
}

async function sdkUuids(id: string): Promise<string[]> {
  return (await getSessionMessages(id, { dir: p.cwd })).map((m) => m.uuid);
}

describe('resume', () => {
  it('rebuilds the conversation: one assistant message per message.id, results in tool_use order', () => {
    const { id } = writeTwoTurns();
    const loaded = loadSession(p.root, p.cwd, id);
    expect(loaded).toMatchObject({ sessionId: id, lastUuid: 'a5', warnings: [], tailRepairs: [], modelUsage: {} });
    expect(loaded.history).toEqual(TWO_TURNS);
  });

  it('keeps appending to the same file, chained to the last entry', async () => {
    const { id, path } = writeTwoTurns();
    const s = openTest(p, { resume: id });
    expect(s).toMatchObject({ sessionId: id, transcriptPath: path, resumedFrom: id, history: TWO_TURNS });
    s.recorder.record(prompt('third', { uuid: 'u3' }));
    s.recorder.close();
    expect((await sdkUuids(id)).slice(-3)).toEqual(['u2', 'a5', 'u3']);
    expect(loadSession(p.root, p.cwd, id).history.slice(-1)).toEqual([{ role: 'user', content: 'third' }]);
  });

  it('ignores a torn last line (kill -9 mid-write) with a warning, and the next write does not glue onto it', async () => {
    const { id, path } = writeTwoTurns();
    appendFileSync(path, '{"parentUuid":"a5","isSidechain":false,"message":{"id":"msg_4","type":"mess');
    const logger = memoryLogger();
    const s = openTest(p, { resume: id, logger });
    expect(s.history).toEqual(TWO_TURNS);
    expect(s.warnings).toEqual([expect.stringMatching(/^line 11: incomplete last line \(\d+ bytes\), probably cut by a killed process; ignored$/)]);
    expect(logger.lines.filter((l) => l.level === 'warn').map((l) => l.msg)).toEqual([`transcript: ${s.warnings[0]}`]);
    s.recorder.record(prompt('after the crash', { uuid: 'u3' }));
    s.recorder.close();
    expect((await sdkUuids(id)).slice(-2)).toEqual(['a5', 'u3']);
    const again = loadSession(p.root, p.cwd, id);
    expect(again.warnings).toEqual(['line 11: not valid JSON; skipped']);
    expect(again.history).toEqual([...TWO_TURNS, { role: 'user', content: 'after the crash' }]);
  });

  it('skips a malformed middle line with a warning naming it', async () => {
    const { id, path } = writeTwoTurns();
    const lines = readFileSync(path, 'utf8').split('\n');
    lines.splice(3, 0, 'this is {not json', '{"type":"some-future-metadata","x":1}');
    writeFileSync(path, lines.join('\n'));
    const loaded = loadSession(p.root, p.cwd, id);
    expect(loaded.warnings).toEqual(['line 4: not valid JSON; skipped']);
    expect(loaded.history).toEqual(TWO_TURNS);
    expect(await sdkUuids(id)).toEqual(['u1', 'a1', 'a2', 'ra', 'a3', 'rb', 'a4', 'u2', 'a5']);
  });

  it('reads a file with CRLF line ends and a byte-order mark', () => {
    const { id, path } = writeTwoTurns();
    writeFileSync(path, `\uFEFF${readFileSync(path, 'utf8').replace(/\n/g, '\r\n')}`);
    expect(loadSession(p.root, p.cwd, id)).toMatchObject({ warnings: [], history: TWO_TURNS });
  });

  it('answers a tool_use left without a result (killed mid-tool) and records the repair', async () => {
    const s0 = openTest(p);
    const r = s0.recorder;
    r.record(prompt('run two', { uuid: 'u1' }));
    r.record(block('msg_1', toolUse('toolu_a', 'Bash', { command: 'sleep 100' }), { uuid: 'a1' }));
    r.record(block('msg_1', toolUse('toolu_b'), { uuid: 'a2' }));
    r.record(result('toolu_b', 'B', { uuid: 'rb' }));
    // the process dies here: toolu_a never finished
    r.close();
    const expected: ApiMessage[] = [
      { role: 'user', content: 'run two' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'Bash', input: { command: 'sleep 100' } }, toolUseBlock('toolu_b')] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: KILLED_MID_TOOL, is_error: true },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: 'B' },
        ],
      },
    ];
    const loaded = loadSession(p.root, p.cwd, s0.sessionId);
    expect(loaded.history).toEqual(expected);
    expect(loaded.tailRepairs.map((t) => [t.toolUse.id, t.assistantUuid])).toEqual([['toolu_a', 'a1']]);

    const s = openTest(p, { resume: s0.sessionId });
    expect(s.history).toEqual(expected);
    s.recorder.close();
    const replay = await getSessionMessages(s0.sessionId, { dir: p.cwd });
    expect(replay.at(-1)?.message).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: KILLED_MID_TOOL, is_error: true }] });
    const file = readFileSync(s.transcriptPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(file.at(-1)).toMatchObject({ type: 'user', parentUuid: 'rb', sourceToolAssistantUUID: 'a1', toolUseResult: `Error: ${KILLED_MID_TOOL}` });
    // The file now agrees with the conversation: nothing left to repair.
    const again = loadSession(p.root, p.cwd, s0.sessionId);
    expect(again.tailRepairs).toEqual([]);
    expect(again.history).toEqual(expected);
  });

  it('drops API error messages (<synthetic>) and keeps the alternation with a following prompt', () => {
    const s0 = openTest(p);
    s0.recorder.record(prompt('first'));
    s0.recorder.record(block('msg_error_x', text('API Error: 529 overloaded'), { model: '<synthetic>', error: 'overloaded' }));
    s0.recorder.record(marker('[Request interrupted by user]'));
    s0.recorder.record(prompt('second'));
    s0.recorder.close();
    expect(loadSession(p.root, p.cwd, s0.sessionId).history).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: '[Request interrupted by user]' },
          { type: 'text', text: 'second' },
        ],
      },
    ]);
  });

  it('a rewind drops the refused prompt and what followed it from the conversation; the SDK still lists them; a fork leaves them out', async () => {
    const { id } = writeTwoTurns();
    const s = openTest(p, { resume: id });
    s.recorder.record(prompt('a prompt far too long', { uuid: 'u3' }));
    s.recorder.record(block('msg_error_1', text('Prompt is too long'), { uuid: 'e3', model: '<synthetic>', error: 'invalid_request' }));
    s.recorder.record({ type: 'rewind', uuid: 'w3', to: 'a5', reason: 'prompt_too_long' });
    s.recorder.close();
    // Nothing after the rewind yet: it is still where a resume starts (the last entry would be the error).
    expect(loadSession(p.root, p.cwd, id)).toMatchObject({ lastUuid: 'w3', history: TWO_TURNS, warnings: [] });
    const again = openTest(p, { resume: id });
    again.recorder.record(prompt('a short one', { uuid: 'u4' }));
    again.recorder.close();
    expect(loadSession(p.root, p.cwd, id).history).toEqual([...TWO_TURNS, { role: 'user', content: 'a short one' }]);
    expect((await sdkUuids(id)).slice(-4)).toEqual(['a5', 'u3', 'e3', 'u4']);
    const fork = openTest(p, { resume: id, fork: true });
    expect(fork.history).toEqual([...TWO_TURNS, { role: 'user', content: 'a short one' }]);
    fork.recorder.close();
    const copied = readFileSync(fork.transcriptPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { forkedFrom?: { messageUuid: string } });
    expect(copied.flatMap((e) => (e.forkedFrom ? [e.forkedFrom.messageUuid] : [])).slice(-2)).toEqual(['a5', 'u4']);
  });

  it('a parent that is not in the file: the entry is linked to the end of the branch before it, every earlier turn is kept, the repair is reported', () => {
    const { id, path } = writeTwoTurns();
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const at = lines.findIndex((l) => l.includes('"uuid":"u2"'));
    const broken = { ...(JSON.parse(lines[at] ?? '{}') as object), parentUuid: '00000000-dead-4bad-8bad-000000000000' };
    // A progress entry (as Claude Code writes them, hung off a call) names a4 too: a4 still ends the branch.
    const progress = { type: 'progress', uuid: 'pr1', parentUuid: 'a4', isSidechain: false, data: {} };
    lines.splice(at, 1, JSON.stringify(progress), JSON.stringify(broken));
    writeFileSync(path, `${lines.join('\n')}\n`);
    const loaded = loadSession(p.root, p.cwd, id);
    expect([loaded.history, loaded.relinks]).toEqual([
      TWO_TURNS,
      [{ line: at + 2, uuid: 'u2', parentUuid: '00000000-dead-4bad-8bad-000000000000', problem: 'parent_missing', linkedTo: 'a4' }],
    ]);
    expect(openTest(p, { resume: id }).relinked).toEqual({ path, links: loaded.relinks });
  });

  it('a cycle: the entry that closes it is linked to the end of the branch before it', () => {
    const { id, path } = writeTwoTurns();
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    const at = lines.findIndex((l) => l.includes('"uuid":"a4"'));
    // a4 names u2, which comes after it and names a4: a loop of two.
    lines[at] = JSON.stringify({ ...(JSON.parse(lines[at] ?? '{}') as object), parentUuid: 'a5' });
    writeFileSync(path, `${lines.join('\n')}\n`);
    const loaded = loadSession(p.root, p.cwd, id);
    expect(loaded.relinks).toEqual([{ line: at + 1, uuid: 'a4', parentUuid: 'a5', problem: 'cycle', linkedTo: 'rb' }]);
    expect(loaded.history).toEqual(TWO_TURNS);
  });

  it('restores the saved model usage', async () => {
    const usage = {
      'claude-test': {
        inputTokens: 5,
        outputTokens: 6,
        cacheReadInputTokens: 1,
        cacheCreationInputTokens: 2,
        webSearchRequests: 0,
        costUSD: 0.5,
        contextWindow: 200000,
        maxOutputTokens: 32000,
        costBasis: 'table',
      },
    };
    const s0 = openTest(p, { usage: () => usage });
    s0.recorder.record(prompt('hi'));
    await s0.recorder.flush();
    s0.recorder.close();
    const s = openTest(p, { resume: s0.sessionId, usage: () => usage });
    expect(s.restoredModelUsage).toEqual(usage);
    s.recorder.record(prompt('again'));
    await s.recorder.flush();
    s.recorder.close();
    const usageLines = (): number => readFileSync(s0.transcriptPath, 'utf8').split('\n').filter((l) => l.includes('"type":"agentd-usage"')).length;
    expect(usageLines()).toBe(1); // unchanged totals are not written again
    const more = { 'claude-test': { ...usage['claude-test'], costUSD: 0.75 } };
    const s2 = openTest(p, { resume: s0.sessionId, usage: () => more });
    s2.recorder.record(prompt('once more'));
    await s2.recorder.flush();
    s2.recorder.close();
    expect(usageLines()).toBe(2);
    expect(loadSession(p.root, p.cwd, s0.sessionId).modelUsage).toEqual(more);
    expect(openTest(p, { resume: s0.sessionId, fork: true }).restoredModelUsage).toEqual({});
  });
});

describe('--resume-session-at', () => {
  it('keeps the chain up to and including the entry, and branches new entries from it', async () => {
    const { id, firstAnswer } = writeTwoTurns();
    const s = openTest(p, { resume: id, resumeAt: firstAnswer });
    expect(s.history).toEqual(TWO_TURNS.slice(0, 4));
    s.recorder.record(prompt('a different second question', { uuid: 'u9' }));
    s.recorder.close();
    expect(await sdkUuids(id)).toEqual(['u1', 'a1', 'a2', 'ra', 'a3', 'rb', 'a4', 'u9']);
    expect(loadSession(p.root, p.cwd, id).history).toEqual([...TWO_TURNS.slice(0, 4), { role: 'user', content: 'a different second question' }]);
  });

  it('answers calls whose results lie past the cut, and records that on the new branch', async () => {
    const { id } = writeTwoTurns();
    const s = openTest(p, { resume: id, resumeAt: 'a2' });
    expect(s.history).toEqual([
      { role: 'user', content: 'read both files' },
      { role: 'assistant', content: [{ type: 'text', text: 'Reading.' }, toolUseBlock('toolu_a')] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: CUT_BY_RESUME_AT, is_error: true }] },
    ]);
    s.recorder.close();
    expect(loadSession(p.root, p.cwd, id).history).toEqual(s.history);
    // The repair hangs off the cut point. (The SDK's viewer also regroups the cut message's later blocks and
    // results around it, as it does for Claude Code's own branches; the model is sent only the history above.)
    const replay = await getSessionMessages(id, { dir: p.cwd });
    expect(replay.slice(0, 3).map((m) => m.uuid)).toEqual(['u1', 'a1', 'a2']);
    expect(replay.at(-1)?.message).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: CUT_BY_RESUME_AT, is_error: true }] });
  });

  it('fails with message_not_found for an unknown uuid', () => {
    const { id } = writeTwoTurns();
    expect(() => openTest(p, { resume: id, resumeAt: 'nope' })).toThrow(expect.objectContaining({ name: 'SessionLoadError', code: 'message_not_found' }));
  });
});

describe('--fork-session', () => {
  it('copies the chain into a new session at once, with fresh uuids, and leaves the original untouched', async () => {
    const { id, path } = writeTwoTurns();
    const before = readFileSync(path);
    const newId = randomUUID();
    const s = openTest(p, { resume: id, fork: true, sessionId: newId });
    expect(s).toMatchObject({ sessionId: newId, resumedFrom: id, history: TWO_TURNS, transcriptPath: join(dirname(path), `${newId}.jsonl`) });
    expect(readFileSync(path)).toEqual(before);

    // Resumable and listed before anything new is said in it.
    expect(loadSession(p.root, p.cwd, newId).history).toEqual(TWO_TURNS);
    const original = await getSessionMessages(id, { dir: p.cwd });
    const forked = await getSessionMessages(newId, { dir: p.cwd });
    expect(forked.map((m) => m.message)).toEqual(original.map((m) => m.message));
    expect(forked.every((m) => m.session_id === newId)).toBe(true);
    expect(new Set([...forked.map((m) => m.uuid), ...original.map((m) => m.uuid)]).size).toBe(forked.length * 2);
    const copied = readFileSync(s.transcriptPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    expect(copied[0]).toMatchObject({ parentUuid: null, sessionId: newId, forkedFrom: { sessionId: id, messageUuid: 'u1' } });
    const ra = copied.find((e) => e.forkedFrom?.messageUuid === 'ra');
    const a2 = copied.find((e) => e.forkedFrom?.messageUuid === 'a2');
    expect(ra.sourceToolAssistantUUID).toBe(a2.uuid);

    // The SDK's own forkSession gives the same messages.
    const sdkFork = await sdkForkSession(id, { dir: p.cwd });
    expect((await getSessionMessages(sdkFork.sessionId, { dir: p.cwd })).map((m) => m.message)).toEqual(forked.map((m) => m.message));

    s.recorder.record(prompt('in the fork', { uuid: 'f1' }));
    s.recorder.close();
    expect((await getSessionMessages(newId, { dir: p.cwd })).map((m) => m.uuid).at(-1)).toBe('f1');
    expect(readFileSync(path)).toEqual(before);
  });

  it('forks up to --resume-session-at, with a new id when none is given', () => {
    const { id, firstAnswer } = writeTwoTurns();
    const s = openTest(p, { resume: id, fork: true, resumeAt: firstAnswer });
    expect(s.sessionId).not.toBe(id);
    expect(loadSession(p.root, p.cwd, s.sessionId).history).toEqual(TWO_TURNS.slice(0, 4));
  });
});

describe('--continue', () => {
  it('picks the most recently modified session of this project that has a conversation', () => {
    const older = writeTwoTurns();
    const newer = writeTwoTurns();
    utimesSync(older.path, new Date('2026-01-01'), new Date('2026-01-01'));
    utimesSync(newer.path, new Date('2026-02-01'), new Date('2026-02-01'));
    const metaOnly = join(dirname(older.path), `${randomUUID()}.jsonl`);
    writeFileSync(metaOnly, '{"type":"last-prompt","lastPrompt":"x"}\n');
    expect(findLatestSession(p.root, p.cwd)?.sessionId).toBe(newer.id);
    utimesSync(older.path, new Date('2026-03-01'), new Date('2026-03-01'));
    const s = openTest(p, { continue: true });
    expect(s).toMatchObject({ sessionId: older.id, resumedFrom: older.id, history: TWO_TURNS });
  });

  it('fails with not_found when the project has no session', () => {
    expect(() => openTest(p, { continue: true })).toThrow(expect.objectContaining({ code: 'not_found', message: `No conversation found to continue in ${p.cwd}.` }));
  });
});

describe('sessions that cannot be opened', () => {
  function codeOf(f: () => unknown): string {
    try {
      f();
    } catch (err) {
      if (err instanceof SessionLoadError) return err.code;
      throw err;
    }
    return 'no error';
  }

  it('unknown id → not_found (never a silent fresh session)', () => {
    writeTwoTurns();
    const id = randomUUID();
    expect(() => openTest(p, { resume: id })).toThrow(
      expect.objectContaining({ name: 'SessionLoadError', code: 'not_found', message: `No conversation found with session ID: ${id}` }),
    );
  });

  it('a session of another project → not_found naming where it is', () => {
    const other = join(dirname(p.cwd), 'other');
    mkdirSync(other);
    const s = openTest({ ...p, cwd: other });
    s.recorder.record(prompt('elsewhere'));
    s.recorder.close();
    expect(() => openTest(p, { resume: s.sessionId })).toThrow(`Session ${s.sessionId} belongs to another directory (${s.transcriptPath}); resume it from there.`);
  });

  it('not a UUID → invalid_id; metadata only → empty; a directory → unreadable; --session-id taken → in_use', () => {
    expect(codeOf(() => openTest(p, { resume: 'latest' }))).toBe('invalid_id');
    expect(codeOf(() => openTest(p, { sessionId: '../../etc/x' }))).toBe('invalid_id');
    const dir = projectDir(p.root, p.cwd);
    mkdirSync(dir, { recursive: true });
    const empty = randomUUID();
    writeFileSync(join(dir, `${empty}.jsonl`), '{"type":"summary","summary":"s","leafUuid":"x"}\n\n');
    expect(codeOf(() => openTest(p, { resume: empty }))).toBe('empty');
    const isDir = randomUUID();
    mkdirSync(join(dir, `${isDir}.jsonl`));
    expect(codeOf(() => openTest(p, { resume: isDir }))).toBe('unreadable');
    const { id } = writeTwoTurns();
    expect(codeOf(() => openTest(p, { sessionId: id }))).toBe('in_use');
    expect(codeOf(() => openTest(p, { resume: id, fork: true, sessionId: id }))).toBe('in_use');
    expect(codeOf(() => openTest(p, { sessionId: id, persist: false }))).toBe('no error');
  });
});

describe('--no-session-persistence', () => {
  it('writes nothing, for a new session or a resumed one (repairs stay in memory)', () => {
    const fresh = openTest(p, { persist: false });
    fresh.recorder.record(prompt('hi'));
    fresh.recorder.close();
    expect(fresh).toMatchObject({ persisted: false, transcriptPath: join(projectDir(p.root, p.cwd), `${fresh.sessionId}.jsonl`) });
    expect(() => readFileSync(fresh.transcriptPath)).toThrow(/ENOENT/);

    const s0 = openTest(p);
    s0.recorder.record(prompt('go'));
    s0.recorder.record(block('m1', toolUse('toolu_a')));
    s0.recorder.close();
    const before = readFileSync(s0.transcriptPath);
    const s = openTest(p, { resume: s0.sessionId, persist: false });
    expect(s.history.at(-1)).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: KILLED_MID_TOOL, is_error: true }] });
    s.recorder.record(prompt('more'));
    s.recorder.close();
    expect(readFileSync(s0.transcriptPath)).toEqual(before);
  });
});
