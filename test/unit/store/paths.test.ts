import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { getSessionMessages, listSessions } from '@anthropic-ai/claude-agent-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  MAX_PROJECT_DIR_NAME,
  canonicalProjectPath,
  claudeConfigRoot,
  entrypointFrom,
  projectDir,
  projectDirName,
  sanitizeProjectPath,
  stringHash,
  transcriptPath,
} from '../../../src/store/paths.js';
import { block, openTest, prompt, tempProject, text } from './support.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

/** The project key the SDK itself computes for `dir` (it hands it to a session store's listSessions). */
async function sdkProjectKey(dir: string): Promise<string> {
  let key = '';
  await listSessions({
    dir,
    sessionStore: {
      append: async () => undefined,
      load: async () => null,
      listSessions: async (k: string) => {
        key = k;
        return [];
      },
    },
  });
  return key;
}

describe('config root', () => {
  it('is CLAUDE_CONFIG_DIR when set, else ~/.claude, NFC-normalised', () => {
    expect(claudeConfigRoot({ CLAUDE_CONFIG_DIR: '/x/conf' }, '/home/me')).toBe('/x/conf');
    expect(claudeConfigRoot({}, '/home/me')).toBe('/home/me/.claude');
    expect(claudeConfigRoot({ CLAUDE_CONFIG_DIR: '' }, '/home/me')).toBe('/home/me/.claude');
    // "é" as e + combining acute (NFD) becomes the single code point (NFC)
    expect(claudeConfigRoot({ CLAUDE_CONFIG_DIR: '/x/cafe\u0301' }, '/h')).toBe('/x/caf\u00e9');
  });
});

describe('project directory names', () => {
  it('replaces every char outside [A-Za-z0-9] with "-"', () => {
    expect(sanitizeProjectPath('/home/me/x.y/work')).toBe('-home-me-x-y-work');
    expect(sanitizeProjectPath('/tmp/a b/ü_1')).toBe('-tmp-a-b---1');
  });

  it('is the 32-bit Java string hash', () => {
    // Reference values of java.lang.String#hashCode
    expect(stringHash('')).toBe(0);
    expect(stringHash('hello')).toBe(99162322);
    expect(stringHash('Hello, World!')).toBe(1498789909);
    expect(stringHash('polygenelubricants')).toBe(-2147483648);
  });

  it('cuts names over 200 chars and appends base36 of |hash(original path)|', () => {
    const long = `/${'segment.name/'.repeat(20)}end`;
    const name = sanitizeProjectPath(long);
    const expected = `${long.replace(/[^a-zA-Z0-9]/g, '-').slice(0, 200)}-${Math.abs(stringHash(long)).toString(36)}`;
    expect(name).toBe(expected);
    expect(name.length).toBeGreaterThan(MAX_PROJECT_DIR_NAME);
    // exactly 200 chars is not cut
    const exact = `/${'a'.repeat(199)}`;
    expect(sanitizeProjectPath(exact)).toBe(`-${'a'.repeat(199)}`);
  });

  it('honours CLAUDE_CODE_PROJECT_DIR_NAME only with CLAUDE_CONFIG_DIR and a safe name', () => {
    expect(projectDirName('/a/b', { CLAUDE_CONFIG_DIR: '/c', CLAUDE_CODE_PROJECT_DIR_NAME: 'my_proj-1' })).toBe('my_proj-1');
    expect(projectDirName('/a/b', { CLAUDE_CODE_PROJECT_DIR_NAME: 'my_proj-1' })).toBe('-a-b');
    expect(projectDirName('/a/b', { CLAUDE_CONFIG_DIR: '/c', CLAUDE_CODE_PROJECT_DIR_NAME: '../evil' })).toBe('-a-b');
    expect(projectDirName('/a/b', { CLAUDE_CONFIG_DIR: '/c', CLAUDE_CODE_PROJECT_DIR_NAME: 'nul' })).toBe('-a-b');
  });

  it('keys a project by the realpath of its cwd, as the SDK does', async () => {
    const p = tempProject();
    try {
      const link = join(dirname(p.cwd), 'link-to-project');
      symlinkSync(p.cwd, link);
      expect(await sdkProjectKey(link)).toBe(projectDirName(canonicalProjectPath(link)));
      expect(canonicalProjectPath(link)).toBe(p.cwd);
      expect(projectDir(p.root, link)).toBe(join(p.root, 'projects', sanitizeProjectPath(p.cwd)));
      expect(transcriptPath(p.root, link, 'abc')).toBe(join(p.root, 'projects', sanitizeProjectPath(p.cwd), 'abc.jsonl'));
    } finally {
      p.cleanup();
    }
  });

  it('defaults the entrypoint to sdk-cli (what Claude Code sets when non-interactive)', () => {
    expect(entrypointFrom({})).toBe('sdk-cli');
    expect(entrypointFrom({ CLAUDE_CODE_ENTRYPOINT: 'sdk-py' })).toBe('sdk-py');
  });
});

describe('the official SDK finds the transcripts agentd writes', () => {
  it('for a project path longer than 200 chars (hashed directory name)', async () => {
    const p = tempProject();
    try {
      const deep = join(p.cwd, ...Array.from({ length: 12 }, (_, i) => `directory.level-${i}_x`));
      mkdirSync(deep, { recursive: true });
      expect(deep.length).toBeGreaterThan(MAX_PROJECT_DIR_NAME);
      const s = openTest({ ...p, cwd: deep });
      s.recorder.record(prompt('hello from deep'));
      s.recorder.record(block('msg_1', text('hi')));
      await s.recorder.flush();
      s.recorder.close();
      expect(basename(dirname(s.transcriptPath))).toBe(sanitizeProjectPath(deep));
      expect(await sdkProjectKey(deep)).toBe(sanitizeProjectPath(deep));
      expect(existsSync(s.transcriptPath)).toBe(true);

      const messages = await getSessionMessages(s.sessionId, { dir: deep });
      expect(messages.map((m) => m.type)).toEqual(['user', 'assistant']);
      const listed = await listSessions({ dir: deep });
      expect(listed.map((l) => ({ id: l.sessionId, summary: l.summary, cwd: l.cwd }))).toEqual([{ id: s.sessionId, summary: 'hello from deep', cwd: deep }]);
    } finally {
      p.cleanup();
    }
  });

  it('with CLAUDE_CODE_PROJECT_DIR_NAME set', async () => {
    const p = tempProject();
    try {
      vi.stubEnv('CLAUDE_CODE_PROJECT_DIR_NAME', 'fixed-name');
      const env = { CLAUDE_CONFIG_DIR: p.root, CLAUDE_CODE_PROJECT_DIR_NAME: 'fixed-name' };
      const s = openTest(p, { env });
      s.recorder.record(prompt('named dir'));
      s.recorder.close();
      expect(s.transcriptPath).toBe(join(p.root, 'projects', 'fixed-name', `${s.sessionId}.jsonl`));
      expect(await sdkProjectKey(p.cwd)).toBe('fixed-name');
      const messages = await getSessionMessages(s.sessionId, { dir: p.cwd });
      expect(messages.map((m) => m.message)).toEqual([{ role: 'user', content: 'named dir' }]);
    } finally {
      p.cleanup();
    }
  });

  it('not for a session id the SDK was not given', async () => {
    const p = tempProject();
    try {
      expect(await getSessionMessages(randomUUID(), { dir: p.cwd })).toEqual([]);
    } finally {
      p.cleanup();
    }
  });
});
