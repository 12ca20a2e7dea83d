// MEASUREMENT (not part of npm test): what Claude Code 2.1.330 does with (1) a custom command's `model`
// frontmatter, (2) .claude/rules/*.md (with and without `paths:`), (3) CLAUDE.md and command files changed
// between turns. Drives the reference binary through the TS SDK against the loopback model; prints what each
// model request carries.
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { type SDKUserMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { startLoopbackServer } from '../support/loopback-server.js';
import { ROOT, tempDir } from '../support/daemon.js';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');

/** The reference binary's environment: its home, the loopback model, no traffic beyond it. */
function claudeEnv(home: string, baseUrl: string): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: baseUrl, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1',
  };
}

function put(root: string, rel: string, text: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

it('measures', async () => {
  const cwd = realpathSync(tempDir('cc-rules-'));
  const home = tempDir('cc-home-');
  put(cwd, 'CLAUDE.md', 'MEMORY_MARKER_V1\n');
  put(cwd, '.claude/commands/fast.md', '---\nmodel: claude-haiku-4-5\ndescription: fast one\n---\nSay FAST_BODY $ARGUMENTS\n');
  put(cwd, '.claude/rules/always.md', 'RULE_ALWAYS_MARKER\n');
  put(cwd, '.claude/rules/sub/nested.md', 'RULE_NESTED_MARKER\n');
  put(cwd, '.claude/rules/ts.md', '---\npaths: ["src/**/*.ts"]\n---\nRULE_TS_MARKER\n');
  put(cwd, '.claude/rules/md-only.md', '---\npaths:\n  - "docs/*.md"\n---\nRULE_DOCS_MARKER\n');
  put(cwd, 'src/a.ts', 'export const a = 1;\n');
  put(home, '.claude/rules/user.md', 'RULE_USER_MARKER\n');
  const server = await startLoopbackServer({
    rules: [
      { when: { lastUserText: 'read ts' , hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_r', name: 'Read', input: { file_path: join(cwd, 'src/a.ts') } }], stopReason: 'tool_use' } },
    ],
    fallback: { content: [{ type: 'text', text: 'ok' }] },
  });
  const env = claudeEnv(home, server.url);
  const prompts = ['/fast now', 'plain after fast', 'CHANGE', '/later', 'read ts', 'plain last'];
  let resolveNext: (() => void) | undefined;
  async function* input(): AsyncGenerator<SDKUserMessage> {
    for (const p of prompts) {
      if (p === 'CHANGE') {
        put(cwd, 'CLAUDE.md', 'MEMORY_MARKER_V2\n');
        put(cwd, '.claude/commands/later.md', 'LATER_BODY\n');
        put(cwd, '.claude/rules/added.md', 'RULE_ADDED_MARKER\n');
        continue;
      }
      yield { type: 'user', message: { role: 'user', content: p }, parent_tool_use_id: null, session_id: '' };
      await new Promise<void>((r) => (resolveNext = r));
    }
  }
  const log: string[] = [];
  const q = query({
    prompt: input(),
    options: { pathToClaudeCodeExecutable: CLAUDE, cwd, env, model: 'claude-sonnet-4-5', settingSources: ['user', 'project'], canUseTool: async (_n, inp) => ({ behavior: 'allow', updatedInput: inp }), stderr: () => undefined },
  });
  for await (const m of q) {
    if (m.type === 'system' && m.subtype === 'init') log.push(`init slash_commands=${JSON.stringify((m as { slash_commands?: string[] }).slash_commands?.filter((s) => s === 'fast' || s === 'later'))}`);
    if (m.type === 'system' && m.subtype !== 'init') log.push(`system/${m.subtype}: ${JSON.stringify(m).slice(0, 300)}`);
    if (m.type === 'result') { log.push(`result ${m.subtype} ${JSON.stringify((m as { modelUsage?: object }).modelUsage ? Object.keys((m as { modelUsage: object }).modelUsage) : [])}`); resolveNext?.(); }
  }
  await server.close();
  for (const r of server.requests) {
    const b = r.body;
    const sys = (b.system ?? []).map((s) => s.text).join('\n');
    const msgs = JSON.stringify(b.messages);
    const markers = (t: string): string[] => [...t.matchAll(/[A-Z_]+_(MARKER(_V\d)?|BODY)/g)].map((m) => m[0]);
    console.log(`### request model=${b.model} sysMarkers=${JSON.stringify(markers(sys))} msgMarkers=${JSON.stringify(markers(msgs))} nmsgs=${b.messages.length}`);
  }
  console.log(log.join('\n'));
  const last = server.requests.at(-1);
  const lastText = JSON.stringify(last?.body.messages ?? [], null, 1);
  for (const marker of ['RULE_TS_MARKER', 'FAST_BODY', '/later']) {
    const i = lastText.indexOf(marker);
    console.log(`### AROUND ${marker}\n` + (i < 0 ? '(absent)' : lastText.slice(Math.max(0, i - 1200), i + 400)));
  }
}, 180_000);

it('measures ordering across directories, local files and a brace glob given as a string', async () => {
  const parent = realpathSync(tempDir('cc-rules-parent-'));
  const cwd = join(parent, 'app');
  const home = tempDir('cc-home-');
  put(parent, 'CLAUDE.md', 'PARENT_MEMORY_MARKER\n');
  put(parent, '.claude/rules/p.md', 'RULE_PARENT_MARKER\n');
  put(cwd, 'CLAUDE.md', 'CWD_MEMORY_MARKER\n');
  put(cwd, 'CLAUDE.local.md', 'LOCAL_MEMORY_MARKER\n');
  put(cwd, '.claude/CLAUDE.md', 'DOTCLAUDE_MEMORY_MARKER\n');
  put(cwd, '.claude/rules/z.md', 'RULE_Z_MARKER\n');
  put(cwd, '.claude/rules/B.md', 'RULE_BIG_MARKER\n');
  put(cwd, '.claude/rules/tsx.md', '---\npaths: src/**/*.{ts,tsx}\n---\nRULE_TSX_MARKER\n');
  put(cwd, '.claude/rules/root.md', '---\npaths: "*.json"\n---\nRULE_JSON_MARKER\n');
  put(cwd, 'src/b.tsx', 'export const b = 1;\n');
  put(cwd, 'package.json', '{}\n');
  put(home, '.claude/CLAUDE.md', 'USER_MEMORY_MARKER\n');
  put(home, '.claude/rules/u.md', 'RULE_USER_MARKER\n');
  const server = await startLoopbackServer({
    rules: [
      { when: { lastUserText: 'read tsx', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_r', name: 'Read', input: { file_path: join(cwd, 'src/b.tsx') } }], stopReason: 'tool_use' } },
      { when: { lastUserText: 'read json', hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_j', name: 'Read', input: { file_path: join(cwd, 'package.json') } }], stopReason: 'tool_use' } },
    ],
    fallback: { content: [{ type: 'text', text: 'ok' }] },
  });
  const env = claudeEnv(home, server.url);
  for (const sources of [['user', 'project', 'local'], ['project']] as const) {
    server.requests.length = 0;
    let resolveNext: (() => void) | undefined;
    async function* input(): AsyncGenerator<SDKUserMessage> {
      for (const p of ['read tsx', 'read json']) {
        yield { type: 'user', message: { role: 'user', content: p }, parent_tool_use_id: null, session_id: '' };
        await new Promise<void>((r) => (resolveNext = r));
      }
    }
    const q = query({ prompt: input(), options: { pathToClaudeCodeExecutable: CLAUDE, cwd, env, model: 'claude-sonnet-4-5', settingSources: [...sources], canUseTool: async (_n, inp) => ({ behavior: 'allow', updatedInput: inp }), stderr: () => undefined } });
    for await (const m of q) if (m.type === 'result') resolveNext?.();
    const text = JSON.stringify(server.requests.at(-1)?.body.messages ?? []);
    const order = [...text.matchAll(/Contents of ([^\\]+?)(?: \(([^)]*)\))?:\\n\\n([A-Z_]+MARKER)/g)].map((m) => `${m[3]} <- ${m[1]} (${m[2] ?? ''})`);
    console.log(`### sources=${sources.join(',')}\n${order.join('\n')}`);
  }
  await server.close();
}, 180_000);

it('measures a subdirectory’s own .claude/rules', async () => {
  const cwd = realpathSync(tempDir('cc-rules-sub-'));
  const home = tempDir('cc-home-');
  put(cwd, 'sub/.claude/rules/plain.md', 'SUB_PLAIN_RULE_MARKER\n');
  put(cwd, 'sub/.claude/rules/scoped.md', '---\npaths: "*.txt"\n---\nSUB_SCOPED_RULE_MARKER\n');
  put(cwd, 'sub/CLAUDE.md', 'SUB_MEMORY_MARKER\n');
  put(cwd, 'sub/file.txt', 'hello\n');
  const server = await startLoopbackServer({
    rules: [{ when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use', id: 'toolu_r', name: 'Read', input: { file_path: join(cwd, 'sub/file.txt') } }], stopReason: 'tool_use' } }],
    fallback: { content: [{ type: 'text', text: 'ok' }] },
  });
  const q = query({ prompt: 'read', options: { pathToClaudeCodeExecutable: CLAUDE, cwd, env: claudeEnv(home, server.url), model: 'claude-sonnet-4-5', settingSources: ['project'], canUseTool: async (_n, inp) => ({ behavior: 'allow', updatedInput: inp }), stderr: () => undefined } });
  for await (const m of q) void m;
  await server.close();
  const text = JSON.stringify(server.requests.map((r) => r.body.messages));
  console.log(`### SUB: ${JSON.stringify([...text.matchAll(/Contents of ([^\\]+?)(?: \(([^)]*)\))?:\\n\\n([A-Z_]+MARKER)/g)].map((m) => `${m[3]} <- ${m[1]} (${m[2] ?? ''})`))}`);
}, 180_000);
