// The built daemon answers every bad input with a typed frame, keeps serving, and loses no queued message.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENTD, STREAM_ARGS, baseEnv, initializeFrame, startDaemon, tempDir, userFrame } from '../support/daemon.js';

const isResult = (f: Record<string, unknown>): boolean => f['type'] === 'result';
const protocolErrors = (frames: Array<Record<string, unknown>>) =>
  frames.filter((f) => f['type'] === 'system' && f['subtype'] === 'protocol_error').map((f) => ({ code: f['error_code'], line: f['line_number'] }));

describe('bad input', () => {
  it('answers each malformed line with a typed frame and still serves the user messages around them', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', 'builtin:echo'] });
    d.send(initializeFrame('i1'));
    d.send(userFrame('before'));
    d.sendRaw('{"type":"user", this is not json\n'); // line 3
    d.sendRaw('{"type":"no_such_type"}\n'); // 4
    d.sendRaw('{"type":"control_request","request":{"subtype":"interrupt"}}\n'); // 5: no request_id
    d.sendRaw('{"type":"user","message":{"role":"assistant","content":"x"}}\n'); // 6: wrong shape
    d.sendRaw(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a])); // 7: invalid UTF-8
    d.sendRaw('[1,2,3]\n'); // 8
    d.sendRaw('{"type":"control_request","request_id":"bad1","request":{"subtype":"set_permission_mode","mode":"yolo"}}\n'); // 9
    d.sendRaw('{"type":"control_request","request_id":"bad2","request":{"subtype":"no_such_subtype"}}\n'); // 10
    d.sendRaw('{"type":"control_request","request_id":"bad3", "request": {"subtype": \n'); // 11: invalid JSON, id recoverable
    d.sendRaw('\r\n'); // 12: blank line with CR
    d.send(userFrame('after'));
    d.endInput();
    const { code } = await d.exited;
    expect(code).toBe(0);
    const results = d.tap.frames.filter(isResult).map((f) => f['result']);
    expect(results).toEqual(['before', 'after']);
    expect(protocolErrors(d.tap.frames)).toEqual([
      { code: 'invalid_json', line: 3 },
      { code: 'unknown_frame_type', line: 4 },
      { code: 'missing_request_id', line: 5 },
      { code: 'invalid_frame', line: 6 },
      { code: 'invalid_utf8', line: 7 },
      { code: 'not_an_object', line: 8 },
    ]);
    const errors = d.tap.frames
      .filter((f) => f['type'] === 'control_response' && (f['response'] as { subtype: string }).subtype === 'error')
      .map((f) => {
        const r = f['response'] as { request_id: string; error_code: string; error: string };
        return [r.request_id, r.error_code, r.error.slice(0, 48)];
      });
    expect(errors).toEqual([
      ['bad1', 'invalid_request', 'Invalid set_permission_mode request: mode: Inval'],
      ['bad2', 'unsupported_request', 'Unsupported control request subtype: no_such_sub'],
      ['bad3', 'invalid_json', 'Line 11 is not valid JSON; it was discarded.'],
    ]);
    // The log says what happened without echoing the line's content.
    expect(d.stderr()).not.toContain('this is not json');
  });

  it('rejects an oversized line without buffering it, then keeps serving', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', 'builtin:echo', '--max-line-bytes', '65536'] });
    d.send(initializeFrame('i1'));
    const big = `{"type":"user","message":{"role":"user","content":"${'x'.repeat(5 * 1024 * 1024)}"}}\n`;
    d.sendRaw(big);
    d.send(userFrame('still here'));
    d.endInput();
    expect((await d.exited).code).toBe(0);
    expect(protocolErrors(d.tap.frames)).toEqual([{ code: 'line_too_long', line: 2 }]);
    expect(d.tap.frames.find((f) => f['subtype'] === 'protocol_error')).toMatchObject({ line_bytes: big.length - 1 });
    expect(d.tap.frames.filter(isResult).map((f) => f['result'])).toEqual(['still here']);
  });

  it('stdin closed mid-line: the partial line is reported, queued work finishes, exit 0', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', 'builtin:echo'] });
    d.send(initializeFrame('i1'));
    d.send(userFrame('queued'));
    d.sendRaw('{"type":"user","message":{"role":');
    d.endInput();
    expect((await d.exited).code).toBe(0);
    expect(d.tap.frames.filter(isResult).map((f) => f['result'])).toEqual(['queued']);
    expect(protocolErrors(d.tap.frames)).toEqual([{ code: 'truncated_line', line: 3 }]);
  });

  it('a complete last line without a newline is still served', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', 'builtin:echo'] });
    d.send(initializeFrame('i1'));
    d.sendRaw(JSON.stringify(userFrame('no newline')));
    d.endInput();
    expect((await d.exited).code).toBe(0);
    expect(d.tap.frames.filter(isResult).map((f) => f['result'])).toEqual(['no newline']);
  });

  it('answers 10,000 control requests written at once, in order, while the host does not read for a while', async () => {
    const d = startDaemon({ args: [...STREAM_ARGS, '--scenario', 'builtin:echo'] });
    d.child.stdout?.pause();
    const lines: string[] = [JSON.stringify(initializeFrame('i0'))];
    for (let i = 1; i <= 10_000; i++) lines.push(JSON.stringify({ type: 'control_request', request_id: `r${i}`, request: { subtype: 'mcp_status' } }));
    d.sendRaw(`${lines.join('\n')}\n`);
    d.endInput();
    await new Promise((r) => setTimeout(r, 500));
    // While nobody reads, the daemon stops reading stdin instead of buffering every answer.
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${d.child.pid}/status`, 'utf8'))?.[1] ?? 0);
    expect(rss).toBeLessThan(150 * 1024);
    d.child.stdout?.resume();
    expect((await d.exited).code).toBe(0);
    const ids = d.tap.frames.filter((f) => f['type'] === 'control_response').map((f) => (f['response'] as { request_id: string }).request_id);
    expect(ids).toEqual(['i0', ...Array.from({ length: 10_000 }, (_, i) => `r${i + 1}`)]);
  });
});

describe('start-up and one-shot mode', () => {
  const run = (args: string[], input = '') =>
    spawnSync(process.execPath, [AGENTD, ...args], { input, env: baseEnv({ AGENTD_MODEL_PROVIDER: 'scripted' }), cwd: tempDir(), encoding: 'utf8' });

  it('-v prints a version line starting with a semver the SDKs accept', () => {
    const r = run(['-v']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^2\.1\.330 \(Claude Code compatible; agentd \d+\.\d+\.\d+\)\n$/);
  });

  it('--help documents every flag', () => {
    const r = run(['--help']);
    expect(r.status).toBe(0);
    for (const f of ['--output-format', '--permission-prompt-tool', '--replay-user-messages', '--max-line-bytes', '--resume-session-at']) expect(r.stdout).toContain(f);
  });

  it('a bad flag value is one JSON error line and exit 2', () => {
    const r = run([...STREAM_ARGS, '--max-turns', 'lots']);
    expect(r.status).toBe(2);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      errors: ['--max-turns must be an integer, got "lots".'],
      startup_failure_reason: 'invalid_flag_value',
    });
  });

  it('an unreadable scenario is a fatal start-up error', () => {
    const r = run([...STREAM_ARGS, '--scenario', '/nonexistent/scenario.json']);
    expect(r.status).toBe(2);
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ startup_failure_reason: 'scenario_invalid' });
  });

  it('accepts every SDK flag form: --flag=value, empty values, a stray "" positional, unknown flags', () => {
    const args = [
      '--output-format=stream-json', '--verbose', '--input-format', 'stream-json', '--tools=', '--setting-sources', '',
      '--replay-user-messages', '', '--foo', 'bar', '--neg=-1', '--permission-mode=default', '--max-thinking-tokens=1024',
      '--mcp-config', '{"mcpServers":{}}', '--scenario=builtin:echo',
    ];
    const input = `${JSON.stringify(initializeFrame())}\n${JSON.stringify(userFrame('flags ok'))}\n`;
    const r = run(args, input);
    expect(r.status).toBe(0);
    const frames = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(frames.find((f) => f['type'] === 'result')).toMatchObject({ result: 'flags ok' });
    expect(frames.filter((f) => f['type'] === 'user' && f['isReplay'])).toHaveLength(1);
    // --mcp-config is implemented: an empty server list is taken without the "not implemented" warning.
    expect(r.stderr).not.toContain('mcp-config');
  });

  it('-p answers in text, json and stream-json', () => {
    const text = run(['-p', 'hello', '--scenario', 'builtin:echo']);
    expect([text.status, text.stdout]).toEqual([0, 'hello\n']);
    const json = run(['-p', 'hello', '--output-format', 'json', '--scenario', 'builtin:echo']);
    expect(JSON.parse(json.stdout)).toMatchObject({ type: 'result', subtype: 'success', result: 'hello' });
    const stream = run(['-p', 'hello', '--output-format', 'stream-json', '--scenario', 'builtin:echo']);
    expect(stream.stdout.trim().split('\n').map((l) => (JSON.parse(l) as { type: string }).type)).toEqual(['system', 'assistant', 'result']);
    const piped = run(['-p', '--scenario', 'builtin:echo'], 'from stdin\n');
    expect(piped.stdout).toBe('from stdin\n');
  });

  it('-p exits 1 when the turn fails (missing credentials is a clear error, not a crash)', () => {
    const r = spawnSync(process.execPath, [AGENTD, '-p', 'hi'], { env: baseEnv(), cwd: tempDir(), encoding: 'utf8' });
    expect(r.status).toBe(1);
    // Claude Code's words on stdout (what it prints, measured); agentd's explanation of what to set on stderr.
    expect(r.stdout).toBe('Not logged in · Please run /login\n');
    expect(r.stderr).toContain('No credentials: set ANTHROPIC_API_KEY');
  });
});
