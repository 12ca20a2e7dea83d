// Builds the executable (one bundled ESM file: no TypeScript compiler and few module lookups at start-up) and
// the script entry points. Usage: node scripts/build.mjs
import { build } from 'esbuild';
import { chmodSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(join(root, 'dist'), { recursive: true });

// The daemon: everything bundled except @anthropic-ai/sdk, which is loaded lazily on the first real model
// call (bundling it would put ~100 ms of module evaluation in front of the initialize reply).
await build({
  entryPoints: [join(root, 'src/cli/entry.ts')],
  outfile: join(root, 'dist/agentd.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  external: ['@anthropic-ai/sdk'],
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __agentdCreateRequire } from 'node:module'; const require = __agentdCreateRequire(import.meta.url);",
  },
  legalComments: 'none',
  logLevel: 'warning',
});
chmodSync(join(root, 'dist/agentd.mjs'), 0o755);

// Scripts (demo, bench, schema generator): TypeScript compiled to ESM, dependencies resolved at run time.
const scripts = readdirSync(join(root, 'scripts'))
  .filter((f) => f.endsWith('.ts'))
  .map((f) => join(root, 'scripts', f));
if (scripts.length) {
  await build({
    entryPoints: scripts,
    outdir: join(root, 'dist/scripts'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
  });
}
writeFileSync(join(root, 'dist/.built'), new Date().toISOString());
