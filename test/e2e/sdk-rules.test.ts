// .claude/rules through the official TypeScript SDK on the scripted model, in the places Claude Code 2.1.330
// puts them (test/measure/project-rules.measure.ts): a rule without `paths` in the memory reminder before the
// first prompt, after its directory's CLAUDE.md; a `paths` rule only with the first tool result on a file it
// names; user rules only with settingSources 'user'; none with settingSources [].
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../src/model/types.js';
import { collect, query, scriptedRun } from '../support/sdk-run.js';

function put(root: string, rel: string, text: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

function texts(r: ModelRequest | undefined): string[] {
  const out = (r?.system ?? []).map((b) => b.text);
  for (const m of r?.messages ?? []) {
    if (typeof m.content === 'string') out.push(m.content);
    else for (const b of m.content) out.push(b.type === 'text' && 'text' in b ? String(b.text) : JSON.stringify(b));
  }
  return out;
}

const READ_TS = {
  rules: [
    { when: { lastUserText: 'read it', hasToolResults: false }, reply: { content: [{ type: 'tool_use' as const, id: 'r1', name: 'Read', input: { file_path: '{{cwd}}/src/a.ts' } }] } },
    { reply: { content: [{ type: 'text' as const, text: 'done' }] } },
  ],
};

describe('rule files through the SDK', () => {
  it('a rule reaches the model in the memory reminder, a paths rule with the first matching tool result', async () => {
    const run = scriptedRun(READ_TS);
    put(run.cwd, 'CLAUDE.md', 'MEMORY-MARKER\n');
    put(run.cwd, '.claude/rules/always.md', 'ALWAYS-RULE-MARKER\n');
    put(run.cwd, '.claude/rules/team/style.md', '---\ndescription: team style\n---\nSTYLE-RULE-MARKER\n');
    put(run.cwd, '.claude/rules/ts.md', '---\npaths: src/**/*.{ts,tsx}\n---\nTS-RULE-MARKER\n');
    put(run.cwd, 'src/a.ts', 'export const a = 1;\n');
    put(run.home, '.claude/rules/user.md', 'USER-RULE-MARKER\n');
    await collect(query({ prompt: 'read it', options: run.options({ settingSources: ['project'], allowedTools: ['Read'] }) }));
    const [first, second] = run.requests();
    const memory = texts(first).find((t) => t.startsWith('<system-reminder>\nInstructions from the memory files'));
    expect(memory).toBe(
      '<system-reminder>\nInstructions from the memory files (CLAUDE.md, rules) of the user and of this project follow. Follow them: where they differ from your defaults, they win.\n\n' +
        `Contents of ${join(run.cwd, 'CLAUDE.md')} (project instructions, kept with the code):\n\nMEMORY-MARKER\n\n\n` +
        `Contents of ${join(run.cwd, '.claude/rules/always.md')} (project instructions, kept with the code):\n\nALWAYS-RULE-MARKER\n\n\n` +
        `Contents of ${join(run.cwd, '.claude/rules/team/style.md')} (project instructions, kept with the code):\n\nSTYLE-RULE-MARKER\n` +
        '\n</system-reminder>',
    );
    expect(texts(first).join('\n')).not.toContain('TS-RULE-MARKER');
    expect(texts(first).join('\n')).not.toContain('USER-RULE-MARKER');
    const rule = `Contents of ${join(run.cwd, '.claude/rules/ts.md')} (instructions for files matching src/**/*.{ts,tsx}):\n\nTS-RULE-MARKER\n`;
    expect(texts(second).filter((t) => t.includes('TS-RULE-MARKER'))).toEqual([`<system-reminder>\n${rule}\n</system-reminder>`]);
  });

  it('user rules come with settingSources user; settingSources [] sends no rule', async () => {
    const run = scriptedRun(READ_TS);
    put(run.cwd, '.claude/rules/always.md', 'ALWAYS-RULE-MARKER\n');
    put(run.home, '.claude/rules/user.md', 'USER-RULE-MARKER\n');
    await collect(query({ prompt: 'hello', options: run.options({ settingSources: ['user', 'project'] }) }));
    const all = texts(run.requests()[0]).join('\n');
    expect(all.indexOf('USER-RULE-MARKER')).toBeGreaterThan(0);
    expect(all.indexOf('USER-RULE-MARKER')).toBeLessThan(all.indexOf('ALWAYS-RULE-MARKER'));

    const none = scriptedRun(READ_TS);
    put(none.cwd, '.claude/rules/always.md', 'ALWAYS-RULE-MARKER\n');
    await collect(query({ prompt: 'hello', options: none.options({ settingSources: [] }) }));
    expect(texts(none.requests()[0]).join('\n')).not.toContain('ALWAYS-RULE-MARKER');
  });
});
