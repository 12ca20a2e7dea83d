// isReadOnlyCommand: the per-command argument rules and the line-level conditions (documented in
// src/tools/shell/read-only.ts). Each row is [command, read-only?].
import { describe, expect, it } from 'vitest';
import { READ_ONLY_COMMANDS, analyzeCommand, isReadOnlyCommand } from '../../../src/tools/shell/index.js';

const ROWS: Array<[string, boolean]> = [
  // Always read-only programs.
  ['cat a b', true],
  ['head -n 5 f', true],
  ['tail -f log', true],
  ['wc -l f', true],
  ['grep -rn foo src', true],
  ['stat f', true],
  ['which git', true],
  ['pwd', true],
  ['true', true],
  ['sleep 1', true],
  ['echo a b', true],
  ['du -sh .', true],
  // printf / date / hostname / env.
  ['printf "%s\\n" x', true],
  ['printf -v var x', false],
  ['date +%Y-%m-%d', true],
  ['date -u', true],
  ['date -s 2020-01-01', false],
  ['date --set=2020-01-01', false],
  ['hostname', true],
  ['hostname evil', false],
  ['env', true],
  // rg / tree / sort / uniq / xxd / file / find.
  ['rg -n foo', true],
  ['rg --pre cat foo', false],
  ['rg --hostname-bin=x foo', false],
  ['tree -L 2', true],
  ['tree -o out', false],
  ['sort -u f', true],
  ['sort -uo out f', false],
  ['sort --output=out f', false],
  ['sort -t, -k2 f', true],
  ['uniq -c f', true],
  ['uniq f out', false],
  ['xxd f', true],
  ['xxd f out', false],
  ['file f', true],
  ['file -C -m magic', false],
  ['find . -name x', true],
  ['find . -exec cat {} +', false],
  ['find . -ok rm {} ;', false],
  ['find . -fprint out', false],
  ['find . -delete', false],
  ['command -v git', true],
  ['command git status', true],
  // git.
  ['git status --short', true],
  ['git -C sub log -3', true],
  ['git --no-pager diff HEAD~1', true],
  ['git show HEAD:file', true],
  ['git blame f', true],
  ['git rev-parse HEAD', true],
  ['git ls-files', true],
  ['git branch', true],
  ['git branch -vv', true],
  ['git branch --list "feat*"', true],
  ['git branch --contains abc', true],
  ['git branch new', false],
  ['git branch -d old', false],
  ['git branch -m a b', false],
  ['git tag', true],
  ['git tag -l "v*"', true],
  ['git tag v1', false],
  ['git tag -d v1', false],
  ['git remote', true],
  ['git remote -v', true],
  ['git remote remove origin', false],
  ['git stash list', true],
  ['git stash', false],
  ['git stash pop', false],
  ['git config --get user.email', true],
  ['git config --unset user.email --get x', false],
  ['git config user.email x', false],
  ['git commit -m x', false],
  ['git push', false],
  ['git -c core.pager=less log', false],
  ['git --exec-path=/tmp log', false],
  ['git log --output=f', false],
  ['git diff --ext-diff', false],
  ['git', false],
  // Line-level conditions.
  ['ls | wc -l', true],
  ['ls && cat f', true],
  ['ls > out', false],
  ['ls >> out', false],
  ['ls 2> err', false],
  ['ls 2>/dev/null', true],
  ['ls &>/dev/null', true],
  ['ls 2>&1', true],
  ['wc -l < f', true],
  ['cat <<EOF\nx\nEOF', true],
  ['ls &', false],
  ['ls $(pwd)', false],
  ['ls $HOME', false],
  ['ls *.ts', false],
  ['LANG=C ls', true],
  ['LC_ALL=C.UTF-8 sort f', true],
  ['GIT_EXTERNAL_DIFF=x git diff', false],
  ['LD_PRELOAD=x ls', false],
  ['sudo cat f', false],
  ['nohup cat f', true],
  ['timeout 5 cat f', true],
  ['bash -c "ls; pwd"', true],
  ['bash -c "ls; rm x"', false],
  ['/bin/ls', false],
  ['./script.sh', false],
  ['x=1; ls', false],
  ['', false],
  ['ls "unterminated', false],
  ['sed -n 1p f', false],
  ['awk "{print}" f', false],
  ['rm x', false],
  ['cd /tmp', false],
];

describe('isReadOnlyCommand', () => {
  for (const [cmd, want] of ROWS) {
    it(`${JSON.stringify(cmd)} → ${want}`, async () => {
      expect(isReadOnlyCommand(await analyzeCommand(cmd))).toBe(want);
    });
  }

  it('documents its list', () => {
    expect(READ_ONLY_COMMANDS).toContain('git');
    expect(READ_ONLY_COMMANDS).toContain('ls');
    expect(READ_ONLY_COMMANDS).not.toContain('rm');
    expect(READ_ONLY_COMMANDS).not.toContain('sed');
  });
});
