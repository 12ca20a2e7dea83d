// MEASUREMENT: what the shell path checks (command-paths.ts) add to a permission decision.
import { it } from 'vitest';
import { join } from 'node:path';
import { shellAnalyzer } from '../../src/cli/shell-analyzer.js';
import { checkCommandPaths, discoverGitDir } from '../../src/permissions/command-paths.js';
import { rulesFrom } from '../../src/permissions/rules.js';
import { ROOT } from '../support/daemon.js';

it('cost', async () => {
  const cmds = ['git status', 'ls -la src', 'grep -rn TODO src | head -20', 'cat README.md package.json', 'npm run test -- --coverage', 'cd src && git diff HEAD~1 -- . > /tmp/x.patch'];
  for (const deny of [[], ['Read(./.env)', 'Read(./secrets/**)']]) {
    const ctx = { cwd: ROOT, anchors: [ROOT], readDeny: rulesFrom(deny, 'deny', 'cliArg', ROOT), editDeny: [], trustedGitDir: discoverGitDir(ROOT) };
    for (const c of cmds) {
      const a = await shellAnalyzer.analyze(c);
      const n = 2000;
      const t = process.hrtime.bigint();
      for (let i = 0; i < n; i++) checkCommandPaths(a, c, ctx);
      const us = Number(process.hrtime.bigint() - t) / n / 1000;
      console.log(`deny=${deny.length} ${c}: ${us.toFixed(1)} us`);
    }
  }
  const t = process.hrtime.bigint();
  for (let i = 0; i < 1000; i++) discoverGitDir(join(ROOT, 'src/permissions'));
  console.log(`discoverGitDir: ${(Number(process.hrtime.bigint() - t) / 1000 / 1000).toFixed(1)} us`);
});
