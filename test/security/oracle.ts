// The shell oracle (issue 9, item 7): commands generated from a grammar of allowed prefixes, real options
// (dangerous ones, GNU abbreviations, glued values), quoting, expansions, heredocs and redirections. Every
// command the permission layer lets run without asking (read-only, or covered by an allow rule) is really
// run with bash in a throwaway tree full of canaries; the run fails if a canary was read (its unique content
// shows up in the output or in a file) or anything was written or created.
//
// Shared by the test (fixed seed, small budget: test/security/oracle.test.ts) and `npm run fuzz` (random
// seed, large budget: scripts/fuzz-shell.mjs runs the same test with AGENTD_FUZZ_RUNS / AGENTD_FUZZ_SEED).
import { spawnSync } from 'node:child_process';
import { chmodSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';

export interface CanaryTree {
  root: string;
  project: string;
  home: string;
  /** Unique strings that must never appear in what an approved command prints or writes. */
  canaries: string[];
  /** Directory where executed payloads (fsmonitor, gpg, profile files, ./evil) leave marker files. */
  markers: string;
}

function write(path: string, text: string, mode?: number): void {
  writeFileSync(path, text);
  if (mode !== undefined) chmodSync(path, mode);
}

/** Minimal environment for the runs: no credentials, a fake HOME, a fixed PATH. */
export function oracleEnv(t: CanaryTree): Record<string, string> {
  return { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: t.home, LANG: 'C', LC_ALL: 'C', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', TZ: 'UTC' };
}

export function makeCanaryTree(): CanaryTree {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'agentd-oracle-')));
  const tag = Math.random().toString(36).slice(2, 10);
  const project = join(root, 'project');
  const home = join(root, 'home');
  const outside = join(root, 'outside');
  const markers = join(root, 'markers');
  for (const d of [project, join(project, 'src'), join(project, 'secrets'), home, outside, markers]) mkdirSync(d, { recursive: true });
  const out = `CANARY_OUTSIDE_${tag}`;
  const denied = `CANARY_DENIED_${tag}`;
  const homeSecret = `CANARY_HOME_${tag}`;
  const payload = (name: string): string => `#!/bin/sh\ntouch ${markers}/${name}\n`;
  write(join(outside, 'secret.txt'), `${out}\n`);
  write(join(project, 'secrets', '.env'), `KEY=${denied}\n`);
  write(join(home, 'secret'), `${homeSecret}\n`);
  for (const f of ['.bashrc', '.profile', '.bash_profile', '.bash_login', '.zshrc']) write(join(home, f), `touch ${markers}/profile${f}\n`);
  write(join(project, 'README.md'), '# oracle\nline two\n');
  write(join(project, 'src', 'a.ts'), 'export const a = 1;\n');
  write(join(project, 'list0'), `${join(outside, 'secret.txt')}\u0000`);
  // Programs the model could have written inside the project: they must never run unasked.
  write(join(project, 'evil'), payload('evil-ran'), 0o755);
  write(join(project, 'x.sh'), payload('x-sh-ran'), 0o755);
  mkdirSync(join(project, 'bin'));
  for (const name of ['ls', 'cat', 'git', 'sort', 'gpg']) write(join(project, 'bin', name), payload(`bin-${name}-ran`), 0o755);
  symlinkSync(outside, join(project, 'link-out'));
  symlinkSync(join(outside, 'secret.txt'), join(project, 'link-secret'));
  // Another name of the Read-denied file: a hard link is that very file, whatever it is called.
  linkSync(join(project, 'secrets', '.env'), join(project, 'hl-env'));
  // A fake gitdir the model could have written (not under .git/): config that runs programs.
  const evilGit = join(project, 'evil.git');
  for (const d of ['objects', 'refs/heads', 'hooks']) mkdirSync(join(evilGit, d), { recursive: true });
  write(join(evilGit, 'HEAD'), 'ref: refs/heads/main\n');
  write(
    join(evilGit, 'config'),
    [
      '[core]',
      '\trepositoryformatversion = 0',
      '\tbare = false',
      `\tfsmonitor = ${join(project, 'evil')}`,
      `\tpager = ${join(project, 'evil')}`,
      `\thooksPath = ${join(evilGit, 'hooks')}`,
      '[log]',
      '\tshowSignature = true',
      '[gpg]',
      `\tprogram = ${join(project, 'evil')}`,
      '[diff]',
      `\texternal = ${join(project, 'evil')}`,
      '',
    ].join('\n'),
  );
  for (const h of ['post-checkout', 'pre-commit', 'post-index-change', 'reference-transaction']) write(join(evilGit, 'hooks', h), payload(`hook-${h}`), 0o755);
  // The project itself is a real repository with one commit (its own config is the host's, not the model's).
  const git = (...args: string[]): void => {
    const r = spawnSync('git', ['-c', 'user.name=o', '-c', 'user.email=o@o', '-c', 'init.defaultBranch=main', ...args], { cwd: project, env: oracleEnv({ root, project, home, canaries: [], markers }) });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${r.stderr}`);
  };
  git('init', '-q');
  git('add', 'README.md', 'src/a.ts');
  git('commit', '-qm', 'init');
  return { root, project, home, canaries: [out, denied, homeSecret], markers };
}

/** Every file and symlink under root with size and mtime (atime changes are reads, not writes). */
export function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      const st = lstatSync(p);
      // git refreshes its own index on status (an optional lock-free write of the host's repository).
      if (p.endsWith('/project/.git/index')) continue;
      out.set(p, `${st.mode}:${st.isDirectory() ? '' : st.size}:${st.isDirectory() ? '' : st.mtimeMs}`);
      if (st.isDirectory() && !st.isSymbolicLink()) walk(p);
    }
  };
  walk(root);
  return out;
}

export function diffSnapshots(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [p, v] of after) if (before.get(p) !== v) changes.push(before.has(p) ? `changed ${p}` : `created ${p}`);
  for (const p of before.keys()) if (!after.has(p)) changes.push(`deleted ${p}`);
  return changes;
}

export interface RunResult {
  output: string;
  changes: string[];
  leaked: string[];
}

/** Runs an approved command as the Bash tool would (bash -c, in the project, stdin closed), and judges it. */
export function runApproved(t: CanaryTree, command: string, timeoutMs = 3000): RunResult {
  const before = snapshot(t.root);
  // stdin is /dev/null, as the Bash tool has it closed (a socket on stdin makes bash source ~/.bashrc).
  const r = spawnSync('bash', ['-c', command], { cwd: t.project, env: oracleEnv(t), timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 4 * 1024 * 1024 });
  const output = `${r.stdout?.toString('latin1') ?? ''}${r.stderr?.toString('latin1') ?? ''}`;
  const after = snapshot(t.root);
  const changes = diffSnapshots(before, after);
  const written = changes.filter((c) => c.startsWith('created') || c.startsWith('changed')).map((c) => c.slice(c.indexOf(' ') + 1));
  const leaked = t.canaries.filter((c) => output.includes(c) || written.some((p) => safeRead(p).includes(c)));
  return { output, changes, leaked };
}

function safeRead(p: string): string {
  try {
    return lstatSync(p).isFile() ? readFileSync(p, 'latin1') : '';
  } catch {
    return '';
  }
}

// --- the command grammar ----------------------------------------------------------------------------------

const OUTSIDE = '../outside/secret.txt';
const DENIED = 'secrets/.env';
/** Mostly the first choices (plain, allowed material), sometimes the hostile rest. */
function weighted(common: readonly string[], rare: readonly string[], commonWeight = 4): fc.Arbitrary<string> {
  return fc.oneof({ arbitrary: fc.constantFrom(...common), weight: commonWeight }, { arbitrary: fc.constantFrom(...rare), weight: 1 });
}

/** Paths: inside, outside, denied, through symlinks, home, and marker targets a write would create. */
const paths = weighted(
  ['README.md', 'src', 'src/a.ts', '.'],
  [OUTSIDE, '../outside', DENIED, 'secrets', 'link-out/secret.txt', 'link-secret', 'hl-env', '~/secret', '$HOME/secret', 'pwned-1', 'evil.git', 'list0', '/etc/hostname', 'link-out'],
  2,
);
const markerPath = fc.constantFrom('pwned-1', 'pwned-2', '.git/config', '.git/hooks/pre-commit', '../outside/pwned', '~/.bashrc');

/** A word written in one of the ways bash accepts (the analyser must see through them, or refuse). */
function quoted(word: string): fc.Arbitrary<string> {
  const simple = /^[A-Za-z0-9_./=+,:-]*$/.test(word);
  const options: fc.Arbitrary<string>[] = [fc.constant(`'${word.replace(/'/g, `'\\''`)}'`), fc.constant(`"${word.replace(/(["\\$`])/g, '\\$1')}"`)];
  if (simple) options.push(fc.constant(word), fc.constant(word.length > 1 ? `${word[0]}''${word.slice(1)}` : word), fc.constant(`$'${word}'`));
  return fc.oneof(...options);
}

const expansions = fc.constantFrom(
  '$HOME',
  '${HOME}',
  '"$HOME"',
  '${x=./evil}',
  '${x:=../outside/secret.txt}',
  '$((x))',
  '${y@P}',
  '${!z}',
  '${a[x]}',
  '${HOME:x}',
  '$(($_))',
  '$(cat ../outside/secret.txt)',
  '`./evil`',
  '~',
  '~/secret',
  '*',
  'sec*/.env',
  '{README.md,secrets/.env}',
  '<(./evil)',
);

/** Real options of each allowed program: safe and unsafe, abbreviated, glued. `P` is replaced by a path. */
const PROGRAMS: Record<string, string[]> = {
  ls: ['-la', '-R', '-L', '-RL', '--hyperlink', '-I P', '--ignore=P', '--dired', '--color=never', '-d', '--z'],
  cat: ['-A', '-n', '--show-all', '-v', '--bogus'],
  head: ['-n 2', '-5', '-c3', '--lines=1', '--b=2'],
  tail: ['-n 2', '-c3', '--lines=1'],
  wc: ['-l', '-c', '--files0-from=P', '--files0=P', '--f=P'],
  grep: ['-rn canary', '-R CANARY', '-f P', '-fP', '--file=P', '--fi=P', '-e CANARY', '-r KEY', '--dereference-recursive KEY', '-l x', '--exclude-from=P', 'KEY'],
  sort: ['-u', '-r', '-k2', '-o M', '-oM', '-uoM', '--o=M', '--ou=M', '--output=M', '--outp M', '-T.', '--temporary-directory=.', '--compress-program=./evil', '--co=./evil', '--files0-from=P', '--random-source=P', '--ra=P', '--r'],
  date: ['-u', '+%F', '-d now', '-f P', '-fP', '--file=P', '--fi=P', '-r P', '--reference=P', '-s 2020-01-01', '--s=2020-01-01', '--se=2020-01-01', '-s2020-01-01', '0101', '-I'],
  env: ['-i', '-u X', '-C ..', '-C..', '--ch=..', '--chdir=..', "-S'./evil'", "--s='./evil'", "--sp='cat ../outside/secret.txt'", 'X=1', 'PATH=./bin', 'GIT_DIR=evil.git', 'BASH_ENV=./x.sh', "'BASH_FUNC_cat%%=() { ./evil; }' bash -c cat", '--u=X', '-0', '--debug', 'LD_PRELOAD=./x.so'],
  find: ['. -name x', '. -newer P', '-L . -name secret.txt', '. -follow', '. -exec ./evil {} ;', '. -fprint M', '. -delete -name pwned', '. -files0-from P', '. -printf %p'],
  file: ['-b', '-m P', '-mP', '--magic-file=P', '--magic-f=P', '-C -m P', '--com', '-z', '-f P', '--files-from=P'],
  hexdump: ['-C', '-f P', '-fP', '--format-file=P', '--format-f=P', "-e '\"%x\"'"],
  du: ['-sh', '-L', '--dereference', '-a', '--exclude-from=P', '--files0-from=P'],
  diff: ['-u', '-r', '-r --no-dereference', '-l', '--from-file=P', '--to-file=P', '-X P'],
  uniq: ['-c', 'P M'],
  stat: ['-L', '-c %s', '--printf=%n'],
  readlink: ['-f'],
  realpath: ['--relative-to=P', '-e'],
  echo: ['hi', '-e x', 'CANARY'],
  printf: ['%s x', '-v x y', "-v 'a[$(./evil)]' y"],
  git: [
    'status',
    'status --short',
    'status --porcelain=v2',
    'log --oneline -n 1',
    'log -1 --stat',
    'log --outp=M',
    'log --output=M',
    'log --format=%G?',
    'log -p --ext-diff',
    'diff --no-index P README.md',
    'show HEAD:README.md',
    'show --textconv HEAD:README.md',
    '-C evil.git log',
    '-C evil.git status',
    '--git-dir=evil.git log',
    '--git-dir evil.git status',
    '-c core.fsmonitor=./evil status',
    '-c core.pager=./evil log',
    '--exec-path=./bin status',
    '--work-tree=.. status',
    '--config-env=core.pager=HOME log',
    'grep -n x',
    'grep -O x',
    'branch',
    'branch pwned',
    'tag',
    'config --get core.bare',
    'config core.fsmonitor ./evil',
    'ls-files',
    'rev-parse HEAD',
  ],
};

const programNames = Object.keys(PROGRAMS);

function fill(s: string): fc.Arbitrary<string> {
  const parts = s.split(/\b([PM])\b/);
  if (parts.length === 1) return fc.constant(s);
  return fc.tuple(...parts.map((p) => (p === 'P' ? paths : p === 'M' ? markerPath : fc.constant(p)))).map((xs) => xs.join(''));
}

/** One simple command: maybe a wrapper, maybe assignments, a program with options and operands, maybe redirects. */
const simpleCommand: fc.Arbitrary<string> = fc
  .record({
    prefix: weighted([''], ['timeout 5 ', 'nice -n 1 ', 'stdbuf -o0 ', 'command ', 'env ', 'env -C .. ', 'env --ch=.. ', 'LANG=C ', 'PATH=./bin ', 'GIT_DIR=evil.git ', "sh -c '", "bash -l -c '", 'xargs ', 'env -i ', 'timeout --foreground 5 ', 'nohup ', 'exec ', 'builtin ', 'time -p ', 'env -S ', 'sudo '], 3),
    program: fc.constantFrom(...programNames),
    optionCount: fc.nat({ max: 2 }),
    seed: fc.infiniteStream(fc.nat()),
    operands: fc.array(fc.oneof({ arbitrary: paths.chain(quoted), weight: 5 }, { arbitrary: expansions, weight: 1 }), { maxLength: 2 }),
    redirect: weighted(['', ' 2>/dev/null', ' 2>&1'], [` < ${OUTSIDE}`, ` < ${DENIED}`, ' > pwned-3', ' >> pwned-3', ' >| pwned-3', ' &> pwned-3', " <<< 'x'", ' < link-secret', ' 2> pwned-4'], 3),
  })
  .chain(({ prefix, program, optionCount, seed, operands, redirect }) => {
    const opts = PROGRAMS[program] as string[];
    const it = seed[Symbol.iterator]();
    const chosen = Array.from({ length: optionCount + (program === 'git' ? 1 : 0) }, () => opts[(it.next().value as number) % opts.length] as string);
    return fc.tuple(...chosen.map(fill)).map((filled) => {
      const words = [program, ...filled, ...(program === 'git' ? [] : operands)].join(' ');
      const body = prefix.endsWith("'") ? `${prefix}${words.replace(/'/g, `'\\''`)}'` : `${prefix}${words}`;
      return `${body}${redirect}`;
    });
  });

const heredoc = weighted([''], [
  ' <<EOF\nCANARY body\nEOF',
  " <<'EOF'\n$(./evil)\nEOF",
  ' <<EOF\n$(./evil)\nEOF',
  " <<E'O'F\nx\nEOF\n./evil\nE'O'F",
  ' <<-EOF\n\tx\n\tEOF',
  ' <<"E"OF\nx\nEOF\n./evil\n"E"OF',
  ' <<EOF\nx\n EOF\n./evil\nEOF',
], 6);

/** Values planted before the command (code stored in variables). */
const preamble = weighted([''], ["x='a[$(./evil)]'; ", "y='$(./evil)'; ", 'z=x; ', 'X=./evil; ', 'declare -i n; ', 'a=(1); ', "y='$(cat ../outside/secret.txt)'; "], 5);

export const commandLine: fc.Arbitrary<string> = fc
  .tuple(
    preamble,
    fc.oneof({ arbitrary: fc.array(fc.tuple(simpleCommand, heredoc), { minLength: 1, maxLength: 1 }), weight: 2 }, { arbitrary: fc.array(fc.tuple(simpleCommand, heredoc), { minLength: 2, maxLength: 3 }), weight: 1 }),
    fc.array(fc.constantFrom('; ', ' && ', ' || ', ' | ', '\n'), { minLength: 2, maxLength: 2 }),
  )
  .map(([pre, cmds, seps]) => {
    let line = pre;
    let afterHeredoc = false;
    cmds.forEach(([c, h], i) => {
      // After a heredoc's delimiter line, the next command starts on a line of its own.
      if (i > 0) line += afterHeredoc ? '\n' : (seps[(i - 1) % seps.length] as string);
      line += c + h;
      afterHeredoc = h !== '';
    });
    return line;
  });
