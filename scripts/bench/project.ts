// `initialize` with a project that has a 3-level CLAUDE.md chain (a file in the repository root, one in a
// package, one in the working directory that imports a doc): the memory files load after the answer, so
// `initialize` must not pay for them; spawn → first result shows they are in before the first request.
// (The commands/skills helpers add their files to the same project.)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { userFrame } from './proc.js';
import { awaitResult, initialize, perSubject, place, start, using } from './session.js';
import { SHORT_REPLY } from './startup.js';
import { summarize } from './stats.js';
import type { Subject } from './subjects.js';
import { type BenchContext, type Benchmark, type Row, agentdTarget } from './types.js';

function runs(ctx: BenchContext): number {
  return ctx.quick ? 5 : 20;
}

/** Writes the project under `root`; returns the working directory (root/pkg/app). */
export function writeProjectContext(root: string): string {
  const cwd = join(root, 'pkg', 'app');
  mkdirSync(join(cwd, 'docs'), { recursive: true });
  const body = (what: string): string => `# ${what}\n\n${'- Keep changes small and tested; prefer the existing helpers.\n'.repeat(40)}`;
  writeFileSync(join(root, 'CLAUDE.md'), body('Repository rules'));
  writeFileSync(join(root, 'pkg', 'CLAUDE.md'), body('Package rules'));
  writeFileSync(join(cwd, 'CLAUDE.md'), `${body('App rules')}\nSee @docs/style.md.\n`);
  writeFileSync(join(cwd, 'docs', 'style.md'), body('Style'));
  return cwd;
}

export const initProjectContext: Benchmark = {
  name: 'init-project-context',
  description: 'spawn → `initialize` answered, and spawn → first result, in a project with a 3-level CLAUDE.md chain and an @import (memory files load lazily, before the first request).',
  async run(ctx) {
    const subjects = ctx.subjects(['agentd-scripted', 'claude']);
    const rows: Row[] = [];
    const cases = [
      { metric: 'spawn → initialize answered', target: 45, turn: false },
      { metric: 'spawn → first result', target: undefined, turn: true },
    ];
    for (const c of cases) {
      const base = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({
        bench: 'init-project-context',
        metric: c.metric,
        subject: s.label,
        unit: 'ms',
        ...(c.target !== undefined ? agentdTarget(s, '<=', c.target) : {}),
      });
      rows.push(
        ...(await ctx.withLoopback(SHORT_REPLY, (server) =>
          perSubject(ctx, subjects, base, async (s) => {
            const where = place(ctx, 'init-project-context', s);
            const cwd = writeProjectContext(where.cwd);
            const times: number[] = [];
            for (let i = 0; i <= runs(ctx); i++) {
              const t = await using(start(s, { ...where, cwd }, s.usesLoopback ? { baseUrl: server.url } : {}), async (p) => {
                const init = initialize(p);
                if (c.turn) p.send(userFrame('Say ok.'));
                const answered = await init;
                return (c.turn ? (await awaitResult(p)).at : answered.at) - p.spawnedAt;
              });
              if (i > 0) times.push(t);
            }
            const st = summarize(times);
            return { ...base(s), n: st.n, nLabel: 'runs', median: st.median, p90: st.p90 };
          }),
        )),
      );
    }
    return rows;
  },
};
