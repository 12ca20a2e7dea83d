// Security probes for issue 9 item 3 (paths and rules), run through the real engine, shell analyser and built-in
// tools. Each probe names the verdict the engine must give before anyone is asked: `deny`, `ask`, or `allow`
// (controls, proving the harness can tell them apart). Families: Read deny rules vs what a shell command reads,
// rule paths after `cd`, writes into .git/.claude/.agentd (nested repositories, bare-looking git directories,
// gitdir files) under allow rules and acceptEdits, git in a repository the model may have written, recursion
// that follows symlinks.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HookPermissionDecision } from '../../src/executor/pipeline.js';
import { shellAnalyzer } from '../../src/cli/shell-analyzer.js';
import { discoverGitDir, gitHooksDirs } from '../../src/permissions/command-paths.js';
import { decide } from '../../src/permissions/engine.js';
import type { PermissionModeName } from '../../src/permissions/modes.js';
import { RuleSet, rulesFrom } from '../../src/permissions/rules.js';
import { builtinTools } from '../../src/tools/builtin/index.js';
import type { AnyTool } from '../../src/tools/tool.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentd-paths-')));
const P = join(root, 'project');
const OUT = join(root, 'outside');

function gitDirAt(dir: string): void {
  for (const d of ['objects', 'refs/heads', 'hooks']) mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(dir, 'config'), '[core]\n\trepositoryformatversion = 0\n');
}

for (const d of ['src/sub', 'src/wt', 'secrets', 'config', 'docs']) mkdirSync(join(P, d), { recursive: true });
mkdirSync(OUT, { recursive: true });
const files: Record<string, string> = {
  'secret.txt': 'TOP SECRET\n',
  'secrets/.env': 'KEY=1\n',
  'README.md': '# r\n',
  'src/a.ts': 'export {};\n',
  'docs/guide.md': 'guide\n',
  'config/app.json': '{}\n',
  'nb.ipynb': '{"cells":[],"metadata":{},"nbformat":4,"nbformat_minor":5}\n',
};
for (const [rel, text] of Object.entries(files)) writeFileSync(join(P, rel), text);
writeFileSync(join(OUT, 'o.txt'), 'outside\n');
gitDirAt(join(P, '.git')); // the project's own repository
writeFileSync(join(P, '.git/config'), '[core]\n\trepositoryformatversion = 0\n\thooksPath = .husky\n'); // as husky sets it
mkdirSync(join(P, '.husky'));
gitDirAt(join(P, 'src/sub/.git')); // a nested repository
gitDirAt(join(P, 'evil')); // a bare-looking directory a repository (or the model) can ship
gitDirAt(join(P, 'gd')); // the target of a gitdir file
writeFileSync(join(P, 'src/wt/.git'), 'gitdir: ../../gd\n');
symlinkSync(OUT, join(P, 'docs/link-out'));

const tools = new Map<string, AnyTool>(builtinTools({ projectDir: P }).map((t) => [t.name, t]));
const trustedGitDir = discoverGitDir(P);
const hooksDirs = gitHooksDirs(trustedGitDir, P);

afterAll(() => rmSync(root, { recursive: true, force: true }));

interface Probe {
  name: string;
  tool?: 'Bash' | 'Read' | 'Write' | 'Edit' | 'NotebookEdit' | 'Grep' | 'Glob';
  input: Record<string, unknown> | string;
  allow?: string[];
  deny?: string[];
  mode?: PermissionModeName;
  /** The shell's cwd (relative to the project) after an earlier `cd`. */
  cwd?: string;
  hook?: HookPermissionDecision;
  expect: 'deny' | 'ask' | 'allow';
}

async function verdict(p: Probe): Promise<{ behavior: string; by: string }> {
  const rules = new RuleSet();
  rules.add(rulesFrom(p.allow ?? [], 'allow', 'cliArg', P));
  rules.add(rulesFrom(p.deny ?? [], 'deny', 'cliArg', P));
  const tool = tools.get(p.tool ?? 'Bash') as AnyTool;
  const input = typeof p.input === 'string' ? { command: p.input } : p.input;
  const d = await decide({
    tool,
    input,
    hook: p.hook,
    shared: { cwd: p.cwd ? join(P, p.cwd) : P, additionalDirectories: [] },
    mode: p.mode ?? 'default',
    rules,
    analyzer: shellAnalyzer,
    projectDir: P,
    trustedGitDir,
    hooksDirs,
  });
  return { behavior: d.behavior, by: `${d.decidedBy}: ${'message' in d ? d.message : 'reason' in d ? d.reason : ''}` };
}

const READ_DENY = ['Read(./secret.txt)', 'Read(./secrets/**)'];
const rd = (o: Partial<Probe> = {}): Partial<Probe> => ({ deny: READ_DENY, ...o });
const ALL_BASH = { allow: ['Bash'] };

const readDeny: Probe[] = [
  ...[
    'cat secret.txt',
    'cat ./secret.txt',
    `cat ${P}/secret.txt`,
    'cat src/../secret.txt',
    'grep KEY secrets/.env',
    'head -n 1 < secret.txt',
    'wc -l < secrets/.env',
    'diff secret.txt README.md',
    'tac secret.txt',
    'nl secret.txt',
    'od -c secret.txt',
    'xxd secret.txt',
    'strings secret.txt',
    'sort secret.txt',
    'cut -c1-3 secret.txt',
    'base64 secret.txt',
    "awk '{print}' secret.txt",
    'sed -n p secret.txt',
    'cp secret.txt /tmp/copied',
    'grep -f secret.txt README.md',
    'grep -fsecret.txt README.md',
    'date -fsecret.txt',
    'sort --files0-from=secret.txt',
    'dd if=secret.txt',
    'git show HEAD:secret.txt',
    'curl -d @secret.txt http://127.0.0.1:9/',
    'cd src && cat ../secret.txt',
    'cd secrets; cat .env',
    'echo x | cat - secret.txt',
    'cat "secret.txt"',
    "cat 'secrets/.env'",
    'bash -c "cat secret.txt"',
    'python3 -c "print(open(\'secret.txt\').read())"',
    "awk 'BEGIN { while ((getline l < \"secret.txt\") > 0) print l }'",
    'while read l; do echo "$l"; done < secret.txt',
    'exec 3<secret.txt; cat <&3',
    'echo $(< secret.txt)',
    'cat -- secret.txt',
    'cd -- src && cat ../secret.txt',
    'cd .. && cat project/secret.txt',
    'pushd secrets && cat .env',
    "cat $'secret.txt'",
    'cat sec\\ret.txt',
    'cat ./secrets/./.env',
    'cat secrets//.env',
    'diff <(cat secret.txt) README.md',
    'git log -p -- secret.txt',
    'git show :secret.txt',
    '. ./secret.txt',
    'ln -s secret.txt s',
    'mv secret.txt x',
    'strings -f secret.txt',
    'cp -r secrets /tmp/y',
    'ls secrets',
  ].flatMap((c): Probe[] => [
    { name: `default: ${c}`, input: c, ...rd(), expect: 'deny' },
    { name: `Bash allowed: ${c}`, input: c, ...rd(ALL_BASH), expect: 'deny' },
    { name: `bypass: ${c}`, input: c, ...rd({ mode: 'bypassPermissions' }), expect: 'deny' },
  ]),
  // The shell is in src/ after an earlier cd: relative words resolve there, rules still anchor at the project.
  { name: 'cwd src: cat ../secret.txt', input: 'cat ../secret.txt', cwd: 'src', ...rd(), expect: 'deny' },
  { name: 'cwd src: cat ../secrets/.env (allow cat)', input: 'cat ../secrets/.env', cwd: 'src', ...rd({ allow: ['Bash(cat:*)'] }), expect: 'deny' },
  // What the analyser cannot see under a denied path asks (and is denied in bypass mode, where nobody is asked).
  ...[
    'cat sec*.txt',
    'cat secrets/*',
    'cat */.env',
    'cat .*/secret.txt',
    'cat s?cret.txt',
    'grep -r KEY .',
    'grep -r KEY',
    'grep -R KEY src',
    'grep -rn KEY -- .',
    'rg KEY',
    'rg KEY .',
    'git grep KEY',
    'cat $F',
    'cat "$F"',
    'cat ${F}',
    'find . -name "*.env" -exec cat {} \\;',
    'find . -type f | xargs cat',
    'tar czf /tmp/x.tgz .',
    'zip -r /tmp/x.zip .',
    'diff -r . /tmp',
    'cat < $F',
    'cat {secret,x}.txt',
    'cat secre[t].txt',
    'cat ~+/secret.txt',
    'cat ${PWD}/secret.txt',
    'cat $(ls | grep sec)',
    'xargs cat <<< secret.txt',
    'grep -r KEY --include=*.txt .',
    'find .',
    'find -name .env',
    'find . -type f',
    'ls -R',
    'ls -laR .',
    'tree',
    'tree -a .',
    'du -a',
    'rg -uu KEY',
  ].flatMap((c): Probe[] => [
    { name: `unseen, Bash allowed: ${c}`, input: c, ...rd(ALL_BASH), expect: 'ask' },
    { name: `unseen, bypass: ${c}`, input: c, ...rd({ mode: 'bypassPermissions' }), expect: 'deny' },
  ]),
  { name: 'unseen, allow grep: grep -r KEY .', input: 'grep -r KEY .', ...rd({ allow: ['Bash(grep:*)'] }), expect: 'ask' },
  // The Grep tool reads every file under its path, like grep -r.
  { name: 'Grep tool over the project', tool: 'Grep', input: { pattern: 'KEY', path: P }, ...rd(), expect: 'ask' },
  { name: 'Grep tool over the project, bypass', tool: 'Grep', input: { pattern: 'KEY', path: P }, ...rd({ mode: 'bypassPermissions' }), expect: 'deny' },
  { name: 'Grep tool over secrets/', tool: 'Grep', input: { pattern: 'KEY', path: join(P, 'secrets') }, ...rd(), expect: 'deny' },
  { name: 'control: Grep tool over src', tool: 'Grep', input: { pattern: 'KEY', path: join(P, 'src') }, ...rd(), expect: 'allow' },
  { name: 'control: Glob tool over the project (names only)', tool: 'Glob', input: { pattern: '**/*.ts', path: P }, ...rd(), expect: 'allow' },
  // Controls: reading what no rule denies stays allowed.
  { name: 'control: cat README.md', input: 'cat README.md', ...rd(), expect: 'allow' },
  { name: 'control: grep -r x src', input: 'grep -r x src', ...rd(), expect: 'allow' },
  { name: 'control: cat docs/*.md', input: 'cat docs/*.md', ...rd(ALL_BASH), expect: 'allow' },
  { name: 'control: ls', input: 'ls -la', ...rd(), expect: 'allow' },
  { name: 'control: find src -name x', input: 'find src -name x', ...rd(), expect: 'allow' },
  { name: 'control: ls -R src', input: 'ls -R src', ...rd(), expect: 'allow' },
  // tree left the read-only list (its options are not modelled by grammar): it asks, denied file or not.
  { name: 'tree docs (not read-only: no grammar)', input: 'tree docs', ...rd(), expect: 'ask' },
  { name: 'control: Bash allowed, ls *', input: 'ls -la *', ...rd(ALL_BASH), expect: 'allow' },
  { name: 'control: bypass echo $HOME', input: 'echo $HOME', ...rd({ mode: 'bypassPermissions' }), expect: 'allow' },
  { name: 'control: bypass cat README.md', input: 'cat README.md', ...rd({ mode: 'bypassPermissions' }), expect: 'allow' },
];

const cdRules: Probe[] = [
  { name: 'Read tool after cd src: ./secret.txt still anchors at the project', tool: 'Read', input: { file_path: join(P, 'secret.txt') }, cwd: 'src', deny: ['Read(./secret.txt)'], expect: 'deny' },
  { name: 'Read tool after cd src: bare secret.txt rule', tool: 'Read', input: { file_path: join(P, 'secret.txt') }, cwd: 'src', deny: ['Read(secret.txt)'], expect: 'deny' },
  { name: 'Read tool after cd src: secrets/** rule', tool: 'Read', input: { file_path: join(P, 'secrets/.env') }, cwd: 'src', deny: ['Read(secrets/**)'], expect: 'deny' },
  { name: 'Write after cd src: Edit(./config/**) deny in acceptEdits', tool: 'Write', input: { file_path: join(P, 'config/app.json'), content: 'x' }, cwd: 'src', deny: ['Edit(./config/**)'], mode: 'acceptEdits', expect: 'deny' },
  { name: 'Write after cd src: Edit(./src/**) allow does not become src/src/**', tool: 'Write', input: { file_path: join(P, 'src/new.ts'), content: 'x' }, cwd: 'src', allow: ['Edit(./src/**)'], expect: 'allow' },
  { name: 'Write after cd src: Edit(./src/**) allow does not cover README.md', tool: 'Write', input: { file_path: join(P, 'README.md'), content: 'x' }, cwd: 'src', allow: ['Edit(./src/**)'], expect: 'ask' },
  { name: 'Read after cd src: the project root is still a working directory', tool: 'Read', input: { file_path: join(P, 'README.md') }, cwd: 'src', expect: 'allow' },
  { name: 'Bash after cd src: cat ../secret.txt under Bash(cat:*)', input: 'cat ../secret.txt', cwd: 'src', allow: ['Bash(cat:*)'], deny: ['Read(./secret.txt)'], expect: 'deny' },
];

const protectedWrites: Probe[] = [
  ...(
    [
      ['Write', { file_path: join(P, 'src/sub/.git/config'), content: '[core]\n\tfsmonitor = touch /tmp/pwned\n' }],
      ['Edit', { file_path: join(P, 'src/sub/.git/config'), old_string: '[core]', new_string: '[core]\n\tfsmonitor = x' }],
      ['Write', { file_path: join(P, 'src/sub/.git/hooks/pre-commit'), content: '#!/bin/sh\n' }],
      ['Write', { file_path: join(P, '.git/config'), content: 'x' }],
      ['Write', { file_path: join(P, '.git/hooks/post-checkout'), content: 'x' }],
      ['Write', { file_path: join(P, '.claude/settings.json'), content: '{}' }],
      ['Write', { file_path: join(P, 'src/.claude/settings.local.json'), content: '{}' }],
      ['Write', { file_path: join(P, '.agentd/x'), content: 'x' }],
      ['Write', { file_path: join(P, 'evil/config'), content: 'x' }],
      ['Write', { file_path: join(P, 'evil/hooks/pre-commit'), content: 'x' }],
      ['Write', { file_path: join(P, 'gd/config'), content: 'x' }],
      ['Write', { file_path: join(P, 'src/wt/.git'), content: 'gitdir: /tmp\n' }],
      ['Write', { file_path: join(P, '.husky/pre-commit'), content: '#!/bin/sh\n' }],
      ['NotebookEdit', { notebook_path: join(P, 'src/sub/.git/n.ipynb'), new_source: 'x', cell_type: 'code', edit_mode: 'insert' }],
    ] as Array<[Probe['tool'], Record<string, unknown>]>
  ).flatMap(([tool, input]): Probe[] => [
    { name: `${tool} ${String(input['file_path'] ?? input['notebook_path'])} under Edit(./src/**) + Edit(./**)`, tool, input, allow: ['Edit(./src/**)', 'Edit(./**)', 'Edit(/**)', 'NotebookEdit'], expect: 'ask' },
    { name: `${tool} ${String(input['file_path'] ?? input['notebook_path'])} in acceptEdits`, tool, input, mode: 'acceptEdits', expect: 'ask' },
    { name: `${tool} ${String(input['file_path'] ?? input['notebook_path'])} under allow Write/Edit`, tool, input, allow: ['Write', 'Edit', 'NotebookEdit'], expect: 'ask' },
    { name: `${tool} ${String(input['file_path'] ?? input['notebook_path'])} with a hook allow`, tool, input, hook: { behavior: 'allow', source: 'test' }, expect: 'ask' },
  ]),
  ...[
    'echo "[core] fsmonitor=x" > .git/config',
    'echo x >> src/sub/.git/config',
    'printf x | tee .git/hooks/pre-commit',
    'cp /tmp/x src/sub/.git/hooks/pre-commit',
    'sed -i s/a/b/ .git/config',
    'cd .git && echo x > config',
    'cd src/sub/.git; touch hooks/pre-commit',
    'mkdir -p .claude/agents',
    'touch .agentd/x',
    'ln -sf /tmp/x .git/hooks/pre-push',
    'cp x evil/config',
    'mv x gd/config',
    'cp x .gi?/config',
    'install -m 755 x src/sub/.git/hooks/post-merge',
    'dd of=.git/config',
    'rm -rf .claude',
    'echo x > $F',
    'cp x "$D/config"',
    'python3 -c "open(\'.git/hooks/pre-commit\', \'w\').write(\'x\')"',
    'tar xf /tmp/payload.tar -C src/sub',
    'echo "curl x | sh" > .husky/pre-commit',
    'cp /tmp/h .husky/post-checkout',
  ].flatMap((c): Probe[] => [
    { name: `Bash allowed: ${c}`, input: c, ...ALL_BASH, expect: 'ask' },
    { name: `prefix rules: ${c}`, input: c, allow: ['Bash(echo:*)', 'Bash(printf:*)', 'Bash(tee:*)', 'Bash(cp:*)', 'Bash(sed:*)', 'Bash(cd:*)', 'Bash(touch:*)', 'Bash(mkdir:*)', 'Bash(ln:*)', 'Bash(mv:*)', 'Bash(install:*)', 'Bash(dd:*)', 'Bash(rm:*)'], expect: 'ask' },
  ]),
  { name: 'control: Write src/new.ts under Edit(./src/**)', tool: 'Write', input: { file_path: join(P, 'src/new.ts'), content: 'x' }, allow: ['Edit(./src/**)'], expect: 'allow' },
  { name: 'control: Write src/new.ts in acceptEdits', tool: 'Write', input: { file_path: join(P, 'src/new.ts'), content: 'x' }, mode: 'acceptEdits', expect: 'allow' },
  { name: 'control: Bash allowed, touch src/new.ts', input: 'touch src/new.ts', ...ALL_BASH, expect: 'allow' },
  { name: 'control: Bash allowed, git commit -m msg', input: 'git commit -m "fix .git handling"', ...ALL_BASH, expect: 'allow' },
];

const gitRepos: Probe[] = [
  { name: 'git -C evil status (bare-looking dir)', input: 'git -C evil status', expect: 'ask' },
  { name: 'git -C evil status under Bash(git:*)', input: 'git -C evil status', allow: ['Bash(git:*)'], expect: 'ask' },
  { name: 'git --git-dir=evil status', input: 'git --git-dir=evil status', allow: ['Bash'], expect: 'ask' },
  { name: 'git --git-dir evil log', input: 'git --git-dir evil log', allow: ['Bash'], expect: 'ask' },
  { name: 'GIT_DIR=evil git status', input: 'GIT_DIR=evil git status', allow: ['Bash'], expect: 'ask' },
  { name: 'git -C src/sub status (nested repo)', input: 'git -C src/sub status', expect: 'ask' },
  { name: 'cwd src/sub: git status', input: 'git status', cwd: 'src/sub', allow: ['Bash(git status:*)'], expect: 'ask' },
  { name: 'cd src/sub && git status', input: 'cd src/sub && git status', allow: ['Bash(cd:*)', 'Bash(git status:*)'], expect: 'ask' },
  { name: 'cd evil; git log', input: 'cd evil; git log', allow: ['Bash'], expect: 'ask' },
  { name: 'git -C src/wt status (gitdir file)', input: 'git -C src/wt status', expect: 'ask' },
  { name: 'git -C $D status', input: 'git -C $D status', allow: ['Bash'], expect: 'ask' },
  { name: 'export GIT_DIR=evil; git status', input: 'export GIT_DIR=evil; git status', allow: ['Bash'], expect: 'ask' },
  { name: 'GIT_DIR=evil; git status', input: 'GIT_DIR=evil; git status', allow: ['Bash'], expect: 'ask' },
  { name: 'env GIT_DIR=evil git status', input: 'env GIT_DIR=evil git status', allow: ['Bash'], expect: 'ask' },
  { name: 'GIT_CONFIG_GLOBAL=evil/config git status', input: 'GIT_CONFIG_GLOBAL=evil/config git status', allow: ['Bash'], expect: 'ask' },
  { name: 'HOME=evil git status', input: 'HOME=evil git status', allow: ['Bash'], expect: 'ask' },
  { name: 'git config core.fsmonitor under Bash(git:*)', input: 'git config core.fsmonitor "touch /tmp/x"', allow: ['Bash(git:*)'], expect: 'ask' },
  { name: 'git -C src/sub config core.fsmonitor', input: 'git -C src config core.fsmonitor x', allow: ['Bash'], expect: 'ask' },
  { name: 'git --git-dir=.git config core.hooksPath', input: 'git --git-dir=.git config core.hooksPath /tmp/h', allow: ['Bash'], expect: 'ask' },
  { name: 'git config --file .git/config', input: 'git config --file .git/config core.pager less', allow: ['Bash(git config:*)'], expect: 'ask' },
  { name: 'git config --global core.pager', input: 'git config --global core.pager "sh -c x"', allow: ['Bash'], expect: 'ask' },
  { name: 'echo to ~/.gitconfig', input: 'echo "[core] fsmonitor=x" >> ~/.gitconfig', allow: ['Bash'], expect: 'ask' },
  { name: 'tar xf into the project', input: 'tar xf /tmp/payload.tar', allow: ['Bash'], expect: 'ask' },
  { name: 'git apply a patch', input: 'git apply /tmp/p.diff', allow: ['Bash'], expect: 'ask' },
  { name: 'cwd src: git -C .. -C src/sub status', input: 'git -C sub status', cwd: 'src', expect: 'ask' },
  { name: 'control: GIT_PAGER=cat git log', input: 'GIT_PAGER=cat git log', allow: ['Bash'], expect: 'allow' },
  { name: 'control: git config --get user.name', input: 'git config --get user.name', allow: ['Bash'], expect: 'allow' },
  { name: 'git -C /tmp status', input: `git -C ${OUT} status`, allow: ['Bash'], expect: 'allow' },
  { name: 'control: git status in the project', input: 'git status', expect: 'allow' },
  // git -C is never read-only (the shell analyser's rule), even into the project's own repository.
  { name: 'git -C src log (never read-only)', input: 'git -C src log', expect: 'ask' },
  { name: 'control: cwd src: git diff', input: 'git diff', cwd: 'src', expect: 'allow' },
];
// A repository outside every working directory that the model could have made: not the project's.
gitDirAt(join(OUT, '.git'));

const symlinks: Probe[] = [
  ...['grep -R x .', 'grep --dereference-recursive x src', 'grep -Rn x docs', 'diff -r docs src', 'diff docs/link-out src', 'find -L .', 'find . -follow', 'ls -RL', 'ls -LR docs', 'ls -lRL', 'du -L', 'du --dereference .', 'tree -l', 'rg --follow x', 'rg -L x', 'rg --fol x'].map(
    (c): Probe => ({ name: `follows symlinks: ${c}`, input: c, expect: 'ask' }),
  ),
  { name: 'control: grep -r x src', input: 'grep -r x src', expect: 'allow' },
  { name: 'control: find . -name x', input: 'find . -name x', expect: 'allow' },
  { name: 'control: ls -R', input: 'ls -R', expect: 'allow' },
  { name: 'control: du -sh .', input: 'du -sh .', expect: 'allow' },
];

// The outside repository makes `git -C OUT status` ask: fix the probe above now that it exists.
gitRepos.splice(gitRepos.findIndex((p) => p.name === 'git -C /tmp status'), 1, { name: 'git -C <outside repo> status', input: `git -C ${OUT} status`, allow: ['Bash'], expect: 'ask' });

const FAMILIES: Record<string, Probe[]> = { 'Read deny rules vs shell reads': readDeny, 'rule paths after cd': cdRules, 'protected directories': protectedWrites, 'git in other repositories': gitRepos, 'symlink recursion': symlinks };

for (const [family, probes] of Object.entries(FAMILIES)) {
  describe(family, () => {
    for (const p of probes) {
      it(`${p.expect}: ${p.name.replace(/\n/g, ' ')}`, async () => {
        const v = await verdict(p);
        expect(v.behavior, v.by).toBe(p.expect);
      });
    }
  });
}

describe('the families are probed', () => {
  it('each has denials or asks and at least one allowed control', () => {
    for (const probes of Object.values(FAMILIES)) {
      expect(probes.filter((p) => p.expect !== 'allow').length).toBeGreaterThan(5);
      expect(probes.some((p) => p.expect === 'allow')).toBe(true);
    }
  });
});
