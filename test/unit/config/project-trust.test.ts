// Repository trust, decided once (src/config/project-trust.ts), and what a trusted repository's `env` may set
// (src/config/repo-env.ts). Whole objects compared.
import { mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { GlobalConfigRead } from '../../../src/config/global-config.js';
import { resolveProjectTrust, trustRecordFor } from '../../../src/config/project-trust.js';
import { repoEnvRefusal } from '../../../src/config/repo-env.js';
import { tempDir } from '../../support/daemon.js';

const ok = (projects: Record<string, unknown>): GlobalConfigRead => ({ kind: 'ok', value: { projects } });
const yes = { hasTrustDialogAccepted: true };

describe('resolveProjectTrust', () => {
  const top = realpathSync(tempDir('agentd-trust-'));
  const home = join(top, 'home');
  const repo = join(home, 'src', 'repo');
  const sub = join(repo, 'pkg', 'a');
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(sub, { recursive: true });
  const file = join(home, '.claude.json');
  const t = (globalConfig: GlobalConfigRead, cwd = sub, o: { flag?: boolean; env?: boolean } = {}) => resolveProjectTrust({ cwd, home, globalConfigFile: file, globalConfig, flag: o.flag ?? false, env: o.env ?? false });

  it('the folder itself, or a folder above it up to its git root, holds the record', () => {
    expect(t(ok({ [sub]: yes }))).toEqual({ kind: 'trusted', by: 'trust_record', folder: sub, file });
    expect(t(ok({ [join(repo, 'pkg')]: yes }))).toEqual({ kind: 'trusted', by: 'trust_record', folder: join(repo, 'pkg'), file });
    expect(t(ok({ [repo]: yes }))).toEqual({ kind: 'trusted', by: 'trust_record', folder: repo, file });
    // Above the git root: the repository is its own.
    expect(t(ok({ [join(home, 'src')]: yes }))).toEqual({ kind: 'untrusted', folder: sub, file });
    expect(t(ok({ [repo]: { hasTrustDialogAccepted: false } }))).toEqual({ kind: 'untrusted', folder: sub, file });
    expect(t(ok({ [repo]: { hasTrustDialogAccepted: 'yes' } }))).toEqual({ kind: 'untrusted', folder: sub, file });
  });

  it('outside a git repository the walk goes up, but a record of the home directory or of / covers only itself', () => {
    const plain = join(home, 'notes', 'x');
    mkdirSync(plain, { recursive: true });
    expect(t(ok({ [join(home, 'notes')]: yes }), plain)).toEqual({ kind: 'trusted', by: 'trust_record', folder: join(home, 'notes'), file });
    expect(t(ok({ [home]: yes, '/': yes }), plain)).toEqual({ kind: 'untrusted', folder: plain, file });
    expect(t(ok({ [home]: yes }), home)).toEqual({ kind: 'trusted', by: 'trust_record', folder: home, file });
  });

  it('a working directory reached through a link is judged by its real path', () => {
    const link = join(top, 'link-to-repo');
    symlinkSync(repo, link);
    expect(t(ok({ [repo]: yes }), link)).toEqual({ kind: 'trusted', by: 'trust_record', folder: repo, file });
    expect(trustRecordFor({ [link]: yes }, link, home)).toBe(link);
  });

  it('the flag and the environment trust for the run; a file that cannot be read trusts nothing and says why', () => {
    expect(t({ kind: 'missing' }, sub, { flag: true })).toEqual({ kind: 'trusted', by: 'flag' });
    expect(t({ kind: 'missing' }, sub, { env: true })).toEqual({ kind: 'trusted', by: 'env' });
    expect(t({ kind: 'missing' })).toEqual({ kind: 'untrusted', folder: sub, file });
    expect(t({ kind: 'unreadable', why: 'json', message: 'Unexpected token' })).toEqual({ kind: 'untrusted', folder: sub, file, unreadable: 'Unexpected token' });
    expect(t({ kind: 'ok', value: [1, 2] })).toEqual({ kind: 'untrusted', folder: sub, file });
  });
});

describe('repoEnvRefusal: what a trusted repository may set', () => {
  it('plain data passes; every family that decides which code runs, or where programs read their configuration, does not', () => {
    const data = ['FOO', 'DATABASE_URL', 'NODE_ENV', 'DEBUG', 'LOG_LEVEL', 'RUST_LOG', 'my_var', 'APP_TIMEOUT_MS'];
    expect(data.filter((n) => repoEnvRefusal(n) !== undefined)).toEqual([]);
    const refused = [
      'BASH_FUNC_git%%', 'BASH_ENV', 'ENV', 'PATH', 'IFS', 'PROMPT_COMMAND', 'SHELLOPTS', 'LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'NODE_OPTIONS', 'PYTHONSTARTUP', 'PERL5OPT', 'RUBYOPT',
      'JAVA_TOOL_OPTIONS', 'GOFLAGS', 'RUSTC_WRAPPER', 'EDITOR', 'VISUAL', 'PAGER', 'GIT_PAGER', 'LESSOPEN', 'SSH_ASKPASS', 'XDG_CONFIG_HOME', 'HOME', 'TMPDIR', 'GIT_CONFIG_GLOBAL',
      'GIT_SSH_COMMAND', 'NPM_CONFIG_USERCONFIG', 'npm_config_script_shell', 'YARN_RC_FILENAME', 'PIP_INDEX_URL', 'TAR_OPTIONS', 'GREP_OPTIONS', 'MAVEN_OPTS', 'HTTPS_PROXY', 'https_proxy',
      'NO_PROXY', 'SSL_CERT_FILE', 'REGISTRY_BASE_URL', 'ANTHROPIC_BASE_URL', 'CLAUDE_CONFIG_DIR', 'AGENTD_TRUST_WORKSPACE', 'AWS_PROFILE', 'OTEL_EXPORTER_OTLP_HEADERS', 'KUBECONFIG', 'DOCKER_HOST',
    ];
    expect(refused.filter((n) => repoEnvRefusal(n) === undefined)).toEqual([]);
    expect(repoEnvRefusal('BASH_FUNC_git%%')).toBe('not a plain variable name (`BASH_FUNC_name%%` exports a shell function)');
    expect(repoEnvRefusal('EDITOR')).toBe('it names a program to run (editor, pager, browser, password prompt, remote shell)');
  });
});
