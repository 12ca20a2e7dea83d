// Which variables a repository's settings `env` may set, once the repository is trusted (untrusted, it sets none):
// the allowlist of data. A variable is data when its name is a plain identifier (letters, digits, `_`) and it is
// none of the variables that decide which code runs or where a program reads its configuration, credentials or
// network from — the families below. Those are dropped with a warning naming each, so the host's allowed commands
// (`Bash(git status:*)`) run the programs the host meant: a repository cannot export a shell function named `git`,
// point git at its own config (fsmonitor, diff.external, core.pager), or make tar, less, npm or the editor run its
// code. The user's own settings (user file, --settings, the policy) set any variable.

/** A family of variables a repository may not set, and why (said in the warning). */
interface Family {
  why: string;
  test: (name: string) => boolean;
}

const is = (...names: string[]): ((n: string) => boolean) => {
  const set = new Set(names);
  return (n) => set.has(n);
};
const prefix = (...ps: string[]): ((n: string) => boolean) => (n) => ps.some((p) => n.startsWith(p));

// Upper-case names are compared; `http_proxy` and `HTTP_PROXY` are the same variable to the programs that read them.
const FAMILIES: readonly Family[] = [
  { why: 'the shell reads it (functions, start-up files, the search path, prompts)', test: (n) => is('PATH', 'IFS', 'ENV', 'BASH_ENV', 'SHELL', 'SHELLOPTS', 'BASHOPTS', 'PS1', 'PS2', 'PS3', 'PS4', 'PROMPT_COMMAND', 'CDPATH', 'GLOBIGNORE', 'HISTFILE', 'ZDOTDIR', 'INPUTRC', 'FPATH', 'TERMINFO', 'TERMINFO_DIRS')(n) || n.startsWith('BASH_') },
  { why: 'the dynamic loader or a language runtime loads code from it', test: (n) => (prefix('LD_', 'DYLD_', 'PYTHON', 'PERL', 'RUBY', 'GEM_', 'BUNDLE_', 'LUA_', 'JAVA_', '_JAVA_', 'JDK_', 'NODE_', 'DENO_', 'BUN_', 'TCL', 'R_')(n) && n !== 'NODE_ENV') || is('CLASSPATH', 'GCONV_PATH', 'GLIBC_TUNABLES', 'HOSTALIASES', 'LOCPATH', 'NLSPATH', 'MALLOC_CONF', 'GOPATH', 'GOROOT', 'GOTOOLCHAIN', 'GOENV', 'GOPROXY', 'GONOSUMDB', 'GOSUMDB', 'GOPRIVATE', 'GOINSECURE', 'RUSTC', 'RUSTC_WRAPPER', 'RUSTC_WORKSPACE_WRAPPER', 'RUSTUP_TOOLCHAIN', 'CC', 'CXX', 'LD', 'AR', 'CPP', 'MAKE', 'MAKESHELL')(n) },
  { why: 'it names a program to run (editor, pager, browser, password prompt, remote shell)', test: (n) => is('EDITOR', 'VISUAL', 'PAGER', 'MANPAGER', 'MANOPT', 'BROWSER', 'LESSOPEN', 'LESSCLOSE', 'LESS', 'LESSKEY', 'LESSKEYIN', 'SUDO_ASKPASS', 'SSH_ASKPASS', 'SSH_ASKPASS_REQUIRE', 'RSYNC_RSH', 'RSYNC_CONNECT_PROG', 'CVS_RSH', 'SVN_SSH', 'DISPLAY', 'TERMINAL', 'FCEDIT', 'VIMINIT', 'EXINIT', 'MYVIMRC', 'GVIMINIT', 'EMACSLOADPATH')(n) },
  { why: 'it moves where programs read their configuration, keys or caches from', test: (n) => is('HOME', 'TMPDIR', 'TMP', 'TEMP', 'CARGO_HOME', 'RUSTUP_HOME', 'GNUPGHOME', 'DOCKER_CONFIG', 'DOCKER_HOST', 'DOCKER_CONTEXT', 'KUBECONFIG', 'WGETRC', 'CURL_HOME', 'NETRC', 'GRADLE_USER_HOME', 'MAVEN_ARGS', 'M2_HOME', 'TF_CLI_CONFIG_FILE', 'ANSIBLE_CONFIG', 'SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'GIT_DIR')(n) || prefix('XDG_')(n) },
  { why: 'git, npm and other tools read their configuration or the programs they run from it', test: prefix('GIT_', 'NPM_', 'YARN_', 'PNPM_', 'NPX_', 'COREPACK_', 'PIP_', 'PIPX_', 'UV_', 'POETRY_', 'CARGO_', 'COMPOSER_', 'HG', 'SVN_', 'TAR_', 'GZIP', 'BZIP', 'XZ_', 'ZIPOPT', 'UNZIP', 'GREP_', 'SSH_', 'GPG_', 'PRE_COMMIT', 'HUSKY', 'DOCKER_', 'TF_', 'ANSIBLE_') },
  { why: 'it passes options to a program (*_OPTIONS, *_OPTS, *FLAGS)', test: (n) => /(_OPTIONS|_OPTS|_OPT|FLAGS)$/.test(n) },
  { why: 'it redirects the network (a proxy, an endpoint, the certificates trusted)', test: (n) => /(^|_)PROXY$/.test(n) || /(_BASE_URL|_ENDPOINT|_ENDPOINT_URL|_API_URL|_REGISTRY)$/.test(n) || is('NO_PROXY', 'ALL_PROXY', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'REQUESTS_CA_BUNDLE', 'CURL_CA_BUNDLE', 'NODE_EXTRA_CA_CERTS', 'NODE_TLS_REJECT_UNAUTHORIZED')(n) },
  { why: "it configures agentd or its model provider's credentials", test: prefix('ANTHROPIC_', 'CLAUDE', 'AGENTD', 'AWS_', 'GOOGLE_', 'GCLOUD_', 'CLOUDSDK_', 'AZURE_', 'OTEL_', 'MCP_', 'CLOUD_ML_', 'VERTEX_', 'BEDROCK_') },
];

/**
 * Why a repository's settings may not set `name` (a trusted one; an untrusted one sets nothing), or undefined when
 * the variable is data and may be set.
 */
export function repoEnvRefusal(name: string): string | undefined {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return 'not a plain variable name (`BASH_FUNC_name%%` exports a shell function)';
  const upper = name.toUpperCase();
  for (const f of FAMILIES) if (f.test(upper)) return f.why;
  return undefined;
}
