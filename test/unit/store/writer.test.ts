import * as fs from 'node:fs';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { getSessionInfo, getSessionMessages, listSessions } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ModelUsageTotals } from '../../../src/session/events.js';
import { type TranscriptTrouble, TranscriptWriter } from '../../../src/store/writer.js';
import { type TempProject, block, marker, memoryLogger, openTest, prompt, result, tempProject, text, toolUse } from './support.js';

let p: TempProject;
beforeEach(() => {
  p = tempProject();
});
afterEach(() => {
  vi.unstubAllEnvs();
  p.cleanup();
});

function lines(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

/** The conversation entries only (no metadata lines). */
function chainLines(path: string): unknown[] {
  return lines(path).filter((l) => typeof l === 'object' && l !== null && 'uuid' in l);
}

const USAGE: Record<string, ModelUsageTotals> = {
  'claude-test': {
    inputTokens: 30,
    outputTokens: 12,
    cacheReadInputTokens: 0,
    cacheCreationInputTokens: 0,
    webSearchRequests: 0,
    costUSD: 0.0123,
    contextWindow: 200000,
    maxOutputTokens: 32000,
    costBasis: 'table',
  },
};

describe('TranscriptWriter', () => {
  it('writes Claude Code entries, one per block and per result, chained by parentUuid', () => {
    let t = Date.parse('2026-03-04T05:06:07.000Z');
    const w = new TranscriptWriter({
      path: join(p.root, 'projects', 'x', 's.jsonl'),
      context: { sessionId: 'sid', cwd: '/w', entrypoint: 'sdk-ts', version: '2.1.330' },
      parentUuid: null,
      now: () => t++,
      logger: memoryLogger(),
    });
    w.record(prompt('read it', { uuid: 'u1' }));
    w.record(block('msg_1', text('Reading.'), { uuid: 'a1' }));
    w.record(block('msg_1', toolUse('toolu_1'), { uuid: 'a2' }));
    w.record(result('toolu_1', 'contents', { uuid: 'r1', data: { file: 'x' }, decision: { decision: 'accept', source: 'config' } }));
    w.record(marker('[Request interrupted by user]'));
    w.record(prompt('be brief', { uuid: 'm1', synthetic: true }));
    const tail = { userType: 'external', entrypoint: 'sdk-ts', cwd: '/w', sessionId: 'sid', version: '2.1.330' };
    const assistantMsg = (content: unknown): unknown => ({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [content],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 5 },
    });
    const got = lines(w.path);
    const interruptUuid = (got[4] as { uuid: string }).uuid;
    expect(got).toEqual([
      { parentUuid: null, isSidechain: false, type: 'user', message: { role: 'user', content: 'read it' }, uuid: 'u1', timestamp: '2026-03-04T05:06:07.000Z', ...tail },
      { parentUuid: 'u1', isSidechain: false, message: assistantMsg({ type: 'text', text: 'Reading.' }), requestId: 'req_msg_1', type: 'assistant', uuid: 'a1', timestamp: '2026-03-04T05:06:07.001Z', ...tail },
      {
        parentUuid: 'a1',
        isSidechain: false,
        message: assistantMsg({ type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/tmp/toolu_1' } }),
        requestId: 'req_msg_1',
        type: 'assistant',
        uuid: 'a2',
        timestamp: '2026-03-04T05:06:07.002Z',
        ...tail,
      },
      {
        parentUuid: 'a2',
        isSidechain: false,
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'contents' }] },
        uuid: 'r1',
        timestamp: '2026-03-04T05:06:07.003Z',
        toolUseResult: { file: 'x' },
        sourceToolAssistantUUID: 'a2',
        permissionDecision: { decision: 'accept', source: 'config' },
        ...tail,
      },
      {
        parentUuid: 'r1',
        isSidechain: false,
        type: 'user',
        message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user]' }] },
        uuid: interruptUuid,
        timestamp: '2026-03-04T05:06:07.004Z',
        ...tail,
      },
      {
        parentUuid: interruptUuid,
        isSidechain: false,
        type: 'user',
        message: { role: 'user', content: 'be brief' },
        uuid: 'm1',
        timestamp: '2026-03-04T05:06:07.005Z',
        isMeta: true,
        ...tail,
      },
    ]);
    w.close();
  });

  it('is write-ahead: the line is on disk when record returns; nothing is created before the first record', async () => {
    const s = openTest(p);
    const path = s.transcriptPath;
    expect(existsSync(dirname(path))).toBe(false);
    s.recorder.record(prompt('hi', { uuid: 'u1' }));
    expect(lines(path)).toMatchObject([{ type: 'user', uuid: 'u1' }]);
    s.recorder.record(block('msg_1', text('hello'), { uuid: 'a1' }));
    expect(lines(path)).toMatchObject([{ uuid: 'u1' }, { uuid: 'a1', parentUuid: 'u1' }]);
    s.recorder.close();
  });

  it('adds last-prompt and agentd-usage lines at flush, only when they changed', async () => {
    let usage: Record<string, ModelUsageTotals> = {};
    const s = openTest(p, { usage: () => usage });
    s.recorder.record(prompt('first question', { uuid: 'u1' }));
    s.recorder.record(block('msg_1', text('answer'), { uuid: 'a1' }));
    usage = USAGE;
    await s.recorder.flush();
    await s.recorder.flush();
    const path = s.transcriptPath;
    const meta = lines(path).slice(2);
    expect(meta).toEqual([
      { type: 'last-prompt', lastPrompt: 'first question', leafUuid: 'a1', sessionId: s.sessionId },
      { type: 'agentd-usage', sessionId: s.sessionId, timestamp: expect.any(String), modelUsage: USAGE },
    ]);
    s.recorder.record(prompt(`  second\n\nquestion ${'x'.repeat(300)}`, { uuid: 'u2' }));
    await s.recorder.flush();
    const after = lines(path).slice(5);
    expect(after).toEqual([{ type: 'last-prompt', lastPrompt: `second question ${'x'.repeat(184)}…`, leafUuid: 'u2', sessionId: s.sessionId }]);
    s.recorder.close();
  });

  it('ends a torn last line before appending, so the new entry is intact', () => {
    const s = openTest(p);
    const path = s.transcriptPath;
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '{"type":"user","uuid":"x","mess');
    s.recorder.record(prompt('after the crash', { uuid: 'u1' }));
    s.recorder.close();
    const raw = readFileSync(path, 'utf8').split('\n');
    expect(raw[0]).toBe('{"type":"user","uuid":"x","mess');
    expect(JSON.parse(raw[1] ?? '')).toMatchObject({ uuid: 'u1', parentUuid: null });
  });

  it('never throws when the disk refuses: counts the lost lines and logs once', async () => {
    const logger = memoryLogger();
    writeFileSync(join(dirname(p.root), 'blocker'), 'a file, not a directory');
    const w = new TranscriptWriter({
      path: join(dirname(p.root), 'blocker', 'projects', 's.jsonl'),
      context: { sessionId: 'sid', cwd: '/w', entrypoint: 'sdk-cli', version: '2.1.330' },
      parentUuid: null,
      now: () => 0,
      logger,
    });
    expect(() => {
      w.record(prompt('one'));
      w.record(block('m', text('two')));
    }).not.toThrow();
    await expect(w.flush()).resolves.toBeUndefined();
    expect(w.linesLost).toBe(2);
    expect(w.lastUuid).toBeNull();
    expect(logger.lines.filter((l) => l.level === 'error').map((l) => l.msg)).toEqual(['the transcript cannot be written; the session will not be saved from here on']);
  });

  describe('writes that fail (disk full, I/O error)', () => {
    /** Real fs calls, except that writes fail once `budget` bytes have gone in: the failing call writes what fits. */
    const fullAfter = (budget: number, code = 'ENOSPC') => {
      let left = budget;
      const writeSync = ((fd: number, buf: Buffer, off: number, len: number) => {
        if (left <= 0) throw Object.assign(new Error(`${code}: no space left on device, write`), { code });
        const n = Math.min(len, left);
        left -= n;
        return fs.writeSync(fd, buf, off, n);
      }) as typeof fs.writeSync;
      return { writeSync, free: (bytes: number) => void (left += bytes) };
    };
    const open = (io: ReturnType<typeof fullAfter>, extra: { maxHeldBytes?: number } = {}) => {
      const logger = memoryLogger();
      const troubles: TranscriptTrouble[] = [];
      const path = join(p.root, 'projects', 'x', 's.jsonl');
      const w = new TranscriptWriter({
        path,
        context: { sessionId: 'sid', cwd: '/w', entrypoint: 'sdk-ts', version: '2.1.330' },
        parentUuid: null,
        now: () => 0,
        logger,
        io: { writeSync: io.writeSync },
        onTrouble: (t) => void troubles.push(t),
        ...extra,
      });
      return { w, path, logger, troubles };
    };
    /** [uuid, parentUuid] of every conversation line; throws if any line is not whole JSON. */
    const chain = (path: string): Array<[string, string | null]> =>
      readFileSync(path, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { uuid?: string; parentUuid?: string | null })
        .flatMap((e) => (e.uuid === undefined ? [] : [[e.uuid, e.parentUuid ?? null] as [string, string | null]]));

    it('holds the lines that fail, keeps the file whole meanwhile, and appends them in order once space is freed', async () => {
      const io = fullAfter(700);
      const { w, path, troubles } = open(io);
      w.record(prompt('first', { uuid: 'u1' }));
      w.record(block('m1', text('x'.repeat(2000)), { uuid: 'a1' })); // does not fit: torn, cut back, held
      w.record(block('m1', text('more'), { uuid: 'a2' }));
      expect(readFileSync(path, 'utf8').endsWith('\n')).toBe(true);
      expect(chain(path)).toEqual([['u1', null]]);
      io.free(100_000);
      w.record(prompt('next turn', { uuid: 'u2' }));
      await w.flush();
      w.close();
      expect(chain(path)).toEqual([
        ['u1', null],
        ['a1', 'u1'],
        ['a2', 'a1'],
        ['u2', 'a2'],
      ]);
      expect([w.linesLost, troubles]).toEqual([
        0,
        [
          { kind: 'failing', code: 'ENOSPC', sessionId: 'sid', path },
          { kind: 'recovered', sessionId: 'sid', path, lines: 3 },
        ],
      ]);
    });

    it('lines still held at exit are lost: the notice names the first entry missing from the file', () => {
      const { w, path, troubles } = open(fullAfter(700));
      w.record(prompt('first', { uuid: 'u1' }));
      w.record(block('m1', text('x'.repeat(2000)), { uuid: 'a1' }));
      w.record(prompt('second', { uuid: 'u2' }));
      w.close();
      expect(chain(path)).toEqual([['u1', null]]);
      expect(troubles).toEqual([
        { kind: 'failing', code: 'ENOSPC', sessionId: 'sid', path },
        { kind: 'lost', code: 'ENOSPC', sessionId: 'sid', firstLostUuid: 'a1' },
      ]);
      expect(w.linesLost).toBeGreaterThanOrEqual(2);
    });

    it('past the bound on held lines, nothing more is recorded, and the first entry dropped is named at once', async () => {
      const io = fullAfter(400);
      const { w, path, troubles } = open(io, { maxHeldBytes: 1500 });
      w.record(prompt('first', { uuid: 'u1' }));
      w.record(block('m1', text('y'.repeat(600)), { uuid: 'a1' }));
      w.record(block('m1', text('z'.repeat(600)), { uuid: 'a2' }));
      w.record(prompt('third', { uuid: 'u3' }));
      io.free(100_000);
      await w.flush();
      w.close();
      expect(chain(path)).toEqual([
        ['u1', null],
        ['a1', 'u1'],
      ]);
      expect(troubles).toEqual([
        { kind: 'failing', code: 'ENOSPC', sessionId: 'sid', path },
        { kind: 'lost', code: 'ENOSPC', sessionId: 'sid', firstLostUuid: 'a2' },
        { kind: 'recovered', sessionId: 'sid', path, lines: 1 },
      ]);
    });

    it('an I/O error is reported with its own code', () => {
      const { w, path, troubles } = open(fullAfter(0, 'EIO'));
      w.record(prompt('first', { uuid: 'u1' }));
      w.close();
      expect(readFileSync(path, 'utf8')).toBe('');
      expect(troubles).toEqual([
        { kind: 'failing', code: 'EIO', sessionId: 'sid', path },
        { kind: 'lost', code: 'EIO', sessionId: 'sid', firstLostUuid: 'u1' },
      ]);
    });
  });

  it('keeps an entry whose tool output JSON cannot hold, without toolUseResult', () => {
    const s = openTest(p);
    s.recorder.record(prompt('go'));
    s.recorder.record(block('m1', toolUse('toolu_1')));
    s.recorder.record(result('toolu_1', 'ok', { uuid: 'r1', data: { big: 10n } }));
    s.recorder.close();
    const last = chainLines(s.transcriptPath).at(-1);
    expect(last).toMatchObject({ uuid: 'r1', message: { content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] } });
    expect(last).not.toHaveProperty('toolUseResult');
  });
});

describe('the official SDK reads what the writer wrote', () => {
  it('lists the session with cwd, summary, first prompt and times, and returns its messages', async () => {
    const s = openTest(p, { env: { CLAUDE_CODE_ENTRYPOINT: 'sdk-ts' } });
    const r = s.recorder;
    r.record(prompt('please read a.txt', { uuid: 'u1' }));
    r.record(block('msg_1', text('Reading both.'), { uuid: 'a1' }));
    r.record(block('msg_1', toolUse('toolu_a'), { uuid: 'a2' }));
    r.record(block('msg_1', toolUse('toolu_b'), { uuid: 'a3' }));
    r.record(result('toolu_b', 'B', { uuid: 'rb' }));
    r.record(result('toolu_a', 'A', { uuid: 'ra' }));
    r.record(prompt('You must answer in JSON.', { uuid: 'meta', synthetic: true }));
    r.record(block('msg_2', text('Done.'), { uuid: 'a4' }));
    await r.flush();
    r.close();

    const listed = await listSessions({ dir: p.cwd });
    expect(listed).toEqual([
      {
        sessionId: s.sessionId,
        summary: 'please read a.txt',
        lastModified: expect.any(Number),
        fileSize: readFileSync(s.transcriptPath).length,
        firstPrompt: 'please read a.txt',
        cwd: p.cwd,
        createdAt: Date.parse(JSON.parse(readFileSync(s.transcriptPath, 'utf8').split('\n')[0] ?? '').timestamp),
        customTitle: undefined,
        gitBranch: undefined,
        tag: undefined,
        archived: undefined,
      },
    ]);
    // An IDE picker hides programmatic sessions (entrypoint sdk-ts), as it does Claude Code's own.
    expect(await listSessions({ dir: p.cwd, includeProgrammatic: false })).toEqual([]);

    const messages = await getSessionMessages(s.sessionId, { dir: p.cwd });
    expect(messages.map((m) => [m.type, m.uuid])).toEqual([
      ['user', 'u1'],
      ['assistant', 'a1'],
      ['assistant', 'a2'],
      ['assistant', 'a3'],
      ['user', 'rb'],
      ['user', 'ra'],
      // the synthetic (isMeta) prompt is not shown
      ['assistant', 'a4'],
    ]);
    expect(messages[2]).toMatchObject({
      session_id: s.sessionId,
      parent_tool_use_id: null,
      message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [{ type: 'tool_use', id: 'toolu_a' }], usage: { input_tokens: 10 } },
    });
    expect(messages[4]?.message).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_b', content: 'B' }] });
    expect(await getSessionInfo(s.sessionId, { dir: p.cwd })).toMatchObject({ sessionId: s.sessionId, summary: 'please read a.txt', cwd: p.cwd });
  });

  it('stores a session title as Claude Code does (ai-title): the SDK lists it instead of the last prompt', async () => {
    const s = openTest(p);
    const r = s.recorder;
    r.record(prompt('please fix the login bug', { uuid: 'u1' }));
    r.recordTitle('Fix the login bug');
    r.record(block('msg_1', text('On it.'), { uuid: 'a1' }));
    await r.flush();
    r.close();
    expect(lines(s.transcriptPath).filter((l) => typeof l === 'object' && l !== null && 'aiTitle' in l)).toEqual([
      { type: 'ai-title', aiTitle: 'Fix the login bug', sessionId: s.sessionId },
    ]);
    // The chain is untouched: the title line is metadata.
    expect(chainLines(s.transcriptPath).map((l) => (l as { uuid: string }).uuid)).toEqual(['u1', 'a1']);
    expect(await listSessions({ dir: p.cwd })).toMatchObject([{ sessionId: s.sessionId, summary: 'Fix the login bug', firstPrompt: 'please fix the login bug' }]);
  });

  it('drops a retried attempt: its blocks and discarded results leave the chain', async () => {
    const s = openTest(p);
    const r = s.recorder;
    r.record(prompt('go', { uuid: 'u1' }));
    r.record(block('msg_1', text('first'), { uuid: 'a1' }));
    r.record(block('msg_1', toolUse('toolu_x'), { uuid: 'a2' }));
    r.record(result('toolu_x', 'discarded', { uuid: 'rx', isError: true }));
    r.record(block('msg_2', text('second attempt'), { uuid: 'b1', supersedes: ['a1', 'a2'] }));
    r.close();
    const messages = await getSessionMessages(s.sessionId, { dir: p.cwd });
    expect(messages.map((m) => m.uuid)).toEqual(['u1', 'b1']);
    expect(chainLines(s.transcriptPath)).toHaveLength(5);
  });

  it('marks an API error message as Claude Code does', () => {
    const s = openTest(p);
    s.recorder.record(prompt('go'));
    s.recorder.record(block('msg_error_1', text('API Error: 400 bad'), { uuid: 'e1', model: '<synthetic>', error: 'invalid_request' }));
    s.recorder.close();
    expect(chainLines(s.transcriptPath).at(-1)).toMatchObject({ uuid: 'e1', isApiErrorMessage: true, error: 'invalid_request', message: { model: '<synthetic>' } });
  });
});
