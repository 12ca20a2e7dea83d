// `initialize` with a project that defines 50 custom commands (some in subfolders) and 20 skills: the scan of
// .claude/commands and .claude/skills happens while initialize is answered, so this is the start-up cost a
// project with many command files pays (issue 12 target: <= 45 ms, as for a bare start).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listCommands } from '../../src/commands/slash.js';
import { loadAgents, scanProject } from '../../src/project/index.js';
import { writeProjectContext } from './project.js';
import { initialize, perSubject, place, start, using } from './session.js';
import { summarize } from './stats.js';
import type { Subject } from './subjects.js';
import { type Benchmark, type Row, agentdTarget } from './types.js';

/**
 * The project of this row (also used by init-instructions), as the issue describes it: init-project-context's
 * 3-level CLAUDE.md chain under `root`, and in its working directory 50 commands (10 in subfolders) and 20 skills.
 * Returns the working directory.
 */
export function writeFullProject(root: string): string {
  const cwd = writeProjectContext(root);
  writeProject(cwd);
  return cwd;
}

function writeProject(cwd: string): void {
  const commands = join(cwd, '.claude', 'commands');
  for (let i = 0; i < 50; i++) {
    const dir = i % 5 === 0 ? join(commands, `group${i % 3}`) : commands;
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `cmd${i}.md`), `---\ndescription: Command number ${i}\nargument-hint: <target>\nallowed-tools: Bash(git status:*), Read\n---\nDo task ${i} for $ARGUMENTS.\n\n${'Some longer instructions. '.repeat(20)}\n`);
  }
  for (let i = 0; i < 20; i++) {
    const dir = join(cwd, '.claude', 'skills', `skill-${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'SKILL.md'), `---\nname: skill-${i}\ndescription: Skill number ${i}, for tasks of kind ${i}\n---\n${'Skill instructions. '.repeat(200)}\n`);
    writeFileSync(join(dir, 'reference.md'), 'Reference material.\n'.repeat(50));
  }
}

export const initProjectCommands: Benchmark = {
  name: 'init-project-commands',
  description: 'spawn → `initialize` answered in a project with a 3-level CLAUDE.md chain (init-project-context\'s), 50 custom commands (10 in subfolders) and 20 skills (settingSources user,project,local); the response lists them all.',
  async run(ctx) {
    const subjects = ctx.subjects(['agentd', 'agentd-scripted', 'claude']);
    const base = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({
      bench: 'init-project-commands',
      metric: 'spawn → initialize answered (50 commands, 20 skills)',
      subject: s.label,
      unit: 'ms',
      ...agentdTarget(s, '<=', 45),
    });
    // The scan itself, in this process (cold caches aside): what the daemon adds to a bare start.
    const scanDir = writeFullProject(ctx.dir('init-project-commands-scan-'));
    const scanTimes: number[] = [];
    for (let i = 0; i <= 20; i++) {
      const t0 = performance.now();
      const catalog = scanProject({ cwd: scanDir, configDir: ctx.dir('init-project-commands-cfg-'), settingSources: ['user', 'project', 'local'], plugins: [] });
      loadAgents(catalog, { flagJson: undefined, sdkAgents: undefined, isKnownTool: () => true });
      const n = listCommands({ builtins: [], commands: () => catalog.commands, skills: () => catalog.skills }).length;
      if (n !== 70) throw new Error(`scan found ${n} commands and skills, expected 70`);
      if (i > 0) scanTimes.push(performance.now() - t0);
    }
    const scan = summarize(scanTimes);
    const scanRow: Row = { bench: 'init-project-commands', metric: 'scan of 50 commands + 20 skills (in process)', subject: 'src/project', unit: 'ms', n: scan.n, nLabel: 'runs', median: scan.median, p90: scan.p90 };
    const rows = await perSubject(ctx, subjects, base, async (s) => {
      const where = place(ctx, 'init-project-commands', s);
      const cwd = writeFullProject(where.cwd);
      const times: number[] = [];
      for (let i = 0; i <= (ctx.quick ? 5 : 20); i++) {
        const t = await using(start(s, { ...where, cwd }, { extraArgs: ['--setting-sources', 'user,project,local'] }), async (p) => {
          const answer = await initialize(p);
          const r = answer.frame['response'] as { response?: { commands?: unknown[] } } | undefined;
          const listed = r?.response?.commands?.length ?? 0;
          if (listed < 70) throw new Error(`initialize listed ${listed} commands, expected at least 70`);
          return answer.at - p.spawnedAt;
        });
        if (i > 0) times.push(t);
      }
      const st = summarize(times);
      return { ...base(s), n: st.n, nLabel: 'runs', median: st.median, p90: st.p90 };
    });
    return [scanRow, ...rows];
  },
};
