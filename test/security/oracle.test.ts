// The shell oracle (see oracle.ts): generated commands, the real permission engine and shell analyser, and every
// command allowed without asking really run in a canary tree. Fixed seed and a small budget here; `npm run fuzz`
// runs the same property with AGENTD_FUZZ_RUNS / AGENTD_FUZZ_SEED (a failing seed is printed; it becomes a probe).
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { shellAnalyzer } from '../../src/cli/shell-analyzer.js';
import { decide } from '../../src/permissions/engine.js';
import { RuleSet, rulesFrom } from '../../src/permissions/rules.js';
import { builtinTools } from '../../src/tools/builtin/index.js';
import { type CanaryTree, commandLine, makeCanaryTree, runApproved } from './oracle.js';

const RUNS = Number(process.env['AGENTD_FUZZ_RUNS'] ?? 500);
const SEED = Number(process.env['AGENTD_FUZZ_SEED'] ?? 9_2026);

const trees: CanaryTree[] = [];
function freshTree(): CanaryTree {
  const t = makeCanaryTree();
  trees.push(t);
  return t;
}

afterAll(() => {
  for (const t of trees) rmSync(t.root, { recursive: true, force: true });
});

function rulesFor(t: CanaryTree): RuleSet {
  const rules = new RuleSet();
  rules.add(rulesFrom(['Bash(ls:*)', 'Bash(git status:*)', 'Bash(npm test:*)'], 'allow', 'cliArg', t.project));
  rules.add(rulesFrom(['Read(./secrets/**)'], 'deny', 'cliArg', t.project));
  return rules;
}

async function approved(t: CanaryTree, command: string): Promise<boolean> {
  const bash = builtinTools({ projectDir: t.project }).find((x) => x.name === 'Bash');
  if (!bash) throw new Error('no Bash tool');
  const d = await decide({
    tool: bash,
    input: { command },
    hook: undefined,
    shared: { cwd: t.project, additionalDirectories: [] },
    mode: 'default',
    rules: rulesFor(t),
    analyzer: shellAnalyzer,
  });
  return d.behavior === 'allow';
}

describe('shell oracle', () => {
  it('can tell: a canary read and a write are caught (the oracle is not blind)', () => {
    const t = freshTree();
    const r0 = runApproved(t, 'cat ../outside/secret.txt');
    expect(r0.leaked.length, JSON.stringify(r0)).toBe(1);
    expect(runApproved(t, 'cat secrets/.env | rev | rev').leaked.length).toBe(1);
    expect(runApproved(t, 'git --git-dir=evil.git status; ls ../markers').changes.some((c) => c.includes('markers/evil-ran'))).toBe(true);
    const u = freshTree();
    expect(runApproved(u, 'sort -o pwned-1 README.md').changes).toEqual([`created ${u.project}/pwned-1`]);
  });

  it('another name (a hard link) of the Read-denied file is denied like the file: reading it would leak the canary', async () => {
    const t = freshTree();
    expect({
      leaksWhenRun: runApproved(t, 'cat hl-env').leaked.length,
      approved: await Promise.all(['cat hl-env', 'head -n1 hl-env', 'wc -c < hl-env', 'cat README.md'].map((c) => approved(t, c))),
    }).toEqual({ leaksWhenRun: 1, approved: [false, false, false, true] });
  });

  it('a git command asks in a working directory laid out as a bare repository (config the model could write)', async () => {
    const t = freshTree();
    const bare = `${t.root}/bare`;
    const { cpSync } = await import('node:fs');
    cpSync(`${t.project}/evil.git`, bare, { recursive: true });
    const b: CanaryTree = { ...t, project: bare };
    expect(await approved(b, 'git log')).toBe(false);
    expect(await approved(b, 'ls')).toBe(true);
    expect(await approved(t, 'git log')).toBe(true);
    // Why: git takes ./config of a bare layout as the repository's configuration.
    expect(runApproved(b, 'git config --get core.fsmonitor').output).toContain(`${t.project}/evil`);
  });

  it(`no command allowed without asking reads a canary or writes (seed ${SEED}, ${RUNS} runs)`, async () => {
    let t = freshTree();
    const stats = { generated: 0, approved: 0, hits: 0 };
    const failures: string[] = [];
    await fc.assert(
      fc.asyncProperty(commandLine, async (command) => {
        stats.generated++;
        if (!(await approved(t, command))) return true;
        stats.approved++;
        const r = runApproved(t, command);
        if (r.leaked.length === 0 && r.changes.length === 0) return true;
        stats.hits++;
        failures.push(`${JSON.stringify(command)}: leaked ${r.leaked.join(',') || 'nothing'}; ${r.changes.join(', ')}`);
        // The tree is dirty now: later runs (and shrinking) get a fresh one.
        t = freshTree();
        return false;
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    ).catch((e: unknown) => {
      throw new Error(`${failures.join('\n')}\n${String(e)}`);
    });
    // Written to stderr for `npm run fuzz` and the report: how much was really exercised.
    process.stderr.write(`shell oracle: seed ${SEED}: ${stats.generated} generated, ${stats.approved} allowed without asking and run, ${stats.hits} canary hits\n`);
    // A generator whose commands are all refused would prove nothing.
    expect(stats.approved).toBeGreaterThan(RUNS / 20);
  });
});
