// Builds the daemon and the script entry points. Usage: node scripts/build.mjs
//
// Start-up is a product feature (initialize answered in ≤ 45 ms), so the daemon is shaped for it:
//  - dist/agentd.js        everything `initialize` and a turn's control flow need, one CommonJS bundle;
//  - dist/agentd-tools.js  tool implementations, shell parser, execa, globbing — required after start-up;
//  - dist/agentd-sdk.js    @anthropic-ai/sdk — required in the background before the first model call;
//  - dist/agentd-mcp.js    MCP connections and @modelcontextprotocol/sdk — required only when servers are configured;
//  - dist/agentd-cli.js    the subcommands (auth, doctor, mcp …, mcp serve) — required only when one is run;
//  - dist/agentd-{bedrock,vertex,foundry}.js  a provider's SDK — required with the first model call to that provider;
//  - dist/agentd-net.js    undici — required only when a proxy or a client certificate is configured;
//  - dist/agentd-log.js    pino — required with the first line logged (src/log/pino-load.ts is swapped for a
//                          require of it), so it runs from a code cache instead of pino's files in node_modules;
//  - dist/launch.js        loads a bundle through vm.Script with a V8 code cache (<bundle>.cache, written on
//                          first use; Node 20 has no module compile cache), so the bundle is not re-parsed.
// bin/agentd runs the launcher. No TypeScript compiler runs at start-up.
import { build } from 'esbuild';
import { chmodSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
// CommonJS regardless of the package's "type": the CJS loader reads files synchronously and skips the ESM
// loader's machinery (a measurable part of start-up).
writeFileSync(join(dist, 'package.json'), '{ "type": "commonjs" }\n');

/** Lazily loaded parts become separate bundles, required by path at run time. */
const lazyBundles = {
  name: 'agentd-lazy-bundles',
  setup(b) {
    b.onResolve({ filter: /\/tools\/lazy-entry\.js$/ }, (args) => (args.importer.endsWith('lazy-entry.ts') ? undefined : { path: './agentd-tools.js', external: true }));
    b.onResolve({ filter: /lazy-entry\.js$/ }, (args) =>
      join(args.resolveDir, args.path).endsWith(join('src', 'mcp', 'lazy-entry.js')) && !args.importer.endsWith('lazy-entry.ts') ? { path: './agentd-mcp.js', external: true } : undefined,
    );
    b.onResolve({ filter: /^@anthropic-ai\/sdk$/ }, (args) => (/(sdk|bedrock|vertex|foundry)-entry/.test(args.importer) ? undefined : { path: './agentd-sdk.js', external: true }));
    // The provider SDKs (each with its own copy of @anthropic-ai/sdk, whose error classes it exports) and undici.
    b.onResolve({ filter: /^\.\/(bedrock|vertex|foundry)-entry\.js$/ }, (args) => ({ path: `./agentd-${args.path.slice(2, args.path.indexOf('-'))}.js`, external: true }));
    b.onResolve({ filter: /^\.\/agentd-log\.js$/ }, () => ({ path: './agentd-log.js', external: true }));
    // Running a subcommand (src/cli/subcommands/run.ts) is its own bundle, required once main.ts recognised one.
    b.onResolve({ filter: /^\.\/run\.js$/ }, (args) => (args.importer.endsWith(join('src', 'cli', 'subcommands', 'index.ts')) ? { path: './agentd-cli.js', external: true } : undefined));
    b.onLoad({ filter: /[\\/]src[\\/]log[\\/]pino-load\.ts$/ }, () => ({
      contents: "import type pinoTypes from 'pino';\nexport function loadPino(): typeof pinoTypes { return require('./agentd-log.js') as typeof pinoTypes; }\n",
      loader: 'ts',
    }));
    b.onResolve({ filter: /^\.\/undici\.js$/ }, (args) => (args.importer.endsWith(join('src', 'net', 'fetch.ts')) ? { path: './agentd-net.js', external: true } : undefined));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'linked',
  legalComments: 'none',
  minify: true,
  keepNames: true,
  logLevel: 'warning',
  // import() of the lazy bundles becomes require() (sync, after start-up); import.meta.url keeps working.
  supported: { 'dynamic-import': false },
  define: { 'import.meta.url': '__agentdImportMetaUrl' },
  banner: { js: "var __agentdImportMetaUrl=require('node:url').pathToFileURL(__filename).href;" },
  plugins: [lazyBundles],
  // ESM-only, with files of its own (seccomp helpers) found next to its modules: required from node_modules
  // (Node ≥ 20.19 requires ESM), and only when the sandbox settings turn it on (tools/sandbox/runtime.ts).
  external: ['@anthropic-ai/sandbox-runtime'],
};

writeFileSync(join(dist, 'sdk-entry.js'), "module.exports = require('@anthropic-ai/sdk');\n");
writeFileSync(join(dist, 'log-entry.js'), "module.exports = require('pino');\n");
await Promise.all([
  build({ ...common, entryPoints: [join(root, 'src/cli/entry.ts')], outfile: join(dist, 'agentd.js') }),
  // web-tree-sitter is required from node_modules (its CommonJS build): its ESM build declares its own `require`,
  // which breaks once esbuild turns its dynamic import() into require().
  build({ ...common, entryPoints: [join(root, 'src/tools/lazy-entry.ts')], outfile: join(dist, 'agentd-tools.js'), external: ['web-tree-sitter', '@anthropic-ai/sandbox-runtime'] }),
  build({ ...common, entryPoints: [join(dist, 'sdk-entry.js')], outfile: join(dist, 'agentd-sdk.js') }),
  build({ ...common, entryPoints: [join(root, 'src/mcp/lazy-entry.ts')], outfile: join(dist, 'agentd-mcp.js') }),
  build({ ...common, entryPoints: [join(root, 'src/cli/subcommands/run.ts')], outfile: join(dist, 'agentd-cli.js') }),
  ...['bedrock', 'vertex', 'foundry'].map((p) => build({ ...common, entryPoints: [join(root, `src/model/providers/${p}-entry.ts`)], outfile: join(dist, `agentd-${p}.js`) })),
  build({ ...common, entryPoints: [join(root, 'src/net/undici.ts')], outfile: join(dist, 'agentd-net.js') }),
  build({ ...common, entryPoints: [join(dist, 'log-entry.js')], outfile: join(dist, 'agentd-log.js') }),
  build({
    ...common,
    minify: false,
    sourcemap: false,
    define: {},
    banner: {},
    plugins: [],
    entryPoints: [join(root, 'src/cli/launch.ts')],
    outfile: join(dist, 'launch.js'),
  }),
]);
rmSync(join(dist, 'sdk-entry.js'));
rmSync(join(dist, 'log-entry.js'));

// Scripts (demo, bench, schema generator): TypeScript compiled to ESM, dependencies resolved at run time.
const scripts = readdirSync(join(root, 'scripts'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(root, 'scripts', f));
if (scripts.length) {
  await build({
    entryPoints: scripts,
    outdir: join(dist, 'scripts'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
}
chmodSync(join(root, 'bin', 'agentd'), 0o755);

/** Runs bin/agentd once with `args`, `input` on its stdin, output dropped; resolves when it has exited. */
const warm = (args, input = '') =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'bin', 'agentd'), ...args], { cwd: root, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() }, stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('exit', resolve);
    child.on('error', resolve);
    child.stdin.end(input);
  });
// Warm the code caches with one real exchange (initialize, a scripted turn that runs a tool), so the functions
// used at start-up and in a turn are in them; debug logging loads (and caches) the log bundle too.
await warm(
  ['--input-format', 'stream-json', '--output-format', 'stream-json', '--scenario', 'builtin:demo', '--no-session-persistence', '--log-level', 'debug'],
  [
    { type: 'control_request', request_id: 'warm', request: { subtype: 'initialize', systemPrompt: [''] } },
    { type: 'user', message: { role: 'user', content: 'hello' }, parent_tool_use_id: null },
  ]
    .map((f) => JSON.stringify(f))
    .join('\n') + '\n',
);
// The subcommands' bundle: `auth status --json` is what the ACP adapter runs at every session.
await warm(['auth', 'status', '--json']);
writeFileSync(join(dist, '.built'), new Date().toISOString());
