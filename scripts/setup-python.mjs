#!/usr/bin/env node
// Makes `.venv-py` hold the vendored Python Claude Agent SDK (../shared/vendor/claude-agent-sdk-python), for the
// e2e tests that drive agentd through the real Python SDK (test/e2e/python-sdk.test.ts runs this first).
//
// Creates the venv once and installs the SDK from the machine's local package index (no internet); later runs
// only check that the installed version is the vendored one (~50 ms). Prints one JSON line on success:
// {"python": "<venv python>", "version": "0.2.143", "installed": true|false}. Anything missing (python3, the
// vendored SDK, the package index, a failed install) is exit 1 with one line saying what is missing and how to
// provide it: the Python tests fail loudly, they never skip.
//
// Overrides: AGENTD_PYTHON (the interpreter to build the venv with, default python3), AGENTD_SHARED_DIR (default
// ../shared next to the checkout), AGENTD_PIP_INDEX_URL (default: the first entry of `pip config get
// global.extra-index-url`, which on this machine kind is the local index; naming it as --index-url keeps pip from
// retrying the unreachable public index for minutes, see ../shared/vendor/README.md).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const VENV = join(ROOT, '.venv-py');
const VENV_PYTHON = join(VENV, 'bin', 'python');

class Missing extends Error {}

function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts }).trim();
}

function sdkSource() {
  const shared = process.env.AGENTD_SHARED_DIR ?? join(ROOT, '..', 'shared');
  const src = join(shared, 'vendor', 'claude-agent-sdk-python');
  const pyproject = join(src, 'pyproject.toml');
  if (!existsSync(pyproject)) {
    throw new Missing(`the vendored Python SDK is missing: no ${pyproject} (the tests need ../shared next to the checkout, or AGENTD_SHARED_DIR pointing at it)`);
  }
  const m = /^version\s*=\s*"([^"]+)"/m.exec(readFileSync(pyproject, 'utf8'));
  if (!m) throw new Missing(`no version = "…" line in ${pyproject}`);
  return { src, version: m[1] };
}

function installedVersion() {
  if (!existsSync(VENV_PYTHON)) return undefined;
  try {
    return run(VENV_PYTHON, ['-c', 'import importlib.metadata as m; print(m.version("claude-agent-sdk"))']);
  } catch {
    return undefined;
  }
}

function indexUrl(python) {
  if (process.env.AGENTD_PIP_INDEX_URL) return process.env.AGENTD_PIP_INDEX_URL;
  let configured = '';
  try {
    configured = run(python, ['-m', 'pip', 'config', 'get', 'global.extra-index-url']);
  } catch {
    // pip prints an error and exits 1 when the key is not set.
  }
  const first = configured.split(/\s+/).find(Boolean);
  if (!first) {
    throw new Missing(
      'no local package index: `pip config get global.extra-index-url` is empty. The Python SDK tests install the SDK\'s dependencies (anyio, mcp, jsonschema, sniffio) from the machine\'s package index without internet; configure it in pip or set AGENTD_PIP_INDEX_URL',
    );
  }
  return first;
}

export function ensurePythonSdk() {
  const { src, version } = sdkSource();
  const have = installedVersion();
  if (have === version) return { python: VENV_PYTHON, version, installed: false };

  const python = process.env.AGENTD_PYTHON ?? 'python3';
  let pyVersion;
  try {
    pyVersion = run(python, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']);
  } catch (e) {
    throw new Missing(`Python 3 is missing: \`${python}\` does not run (${e.code ?? e.message}). Install python3 (with venv and pip), or set AGENTD_PYTHON`);
  }
  const [major, minor] = pyVersion.split('.').map(Number);
  if (major !== 3 || minor < 10) throw new Missing(`Python ${pyVersion} is too old: the Python SDK needs 3.10 or later (set AGENTD_PYTHON)`);
  const index = indexUrl(python);

  // A venv from another interpreter or a half-finished install is rebuilt, never patched.
  rmSync(VENV, { recursive: true, force: true });
  try {
    run(python, ['-m', 'venv', VENV]);
  } catch (e) {
    throw new Missing(`\`${python} -m venv\` failed (on Debian: apt-get install python3-venv): ${String(e.stderr ?? e.message).trim().split('\n').at(-1)}`);
  }
  try {
    run(VENV_PYTHON, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--index-url', index, src], { timeout: 300_000 });
  } catch (e) {
    rmSync(VENV, { recursive: true, force: true });
    const tail = String(e.stderr ?? e.message).trim().split('\n').filter((l) => !l.startsWith('WARNING: Location')).slice(-3).join(' | ');
    throw new Missing(`installing the Python SDK from ${src} with --index-url ${index} failed: ${tail}`);
  }
  const now = installedVersion();
  if (now !== version) throw new Missing(`after installing, .venv-py has claude-agent-sdk ${now ?? '(none)'}, not the vendored ${version}`);
  return { python: VENV_PYTHON, version, installed: true };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${JSON.stringify(ensurePythonSdk())}\n`);
  } catch (e) {
    if (!(e instanceof Missing)) throw e;
    process.stderr.write(`setup-python: ${e.message}\n`);
    process.exit(1);
  }
}
