// Writes protocol/schema/ from the zod wire schemas: one `<Name>.json` per entry of NAMED_SCHEMAS plus
// `index.json`, and removes files that no longer correspond to a schema. Usage: npm run gen:schema
// (built by scripts/build.mjs into dist/scripts/gen-protocol-schema.mjs, run from the repository root).
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateSchemas } from '../protocol/src/json-schema.js';

// dist/scripts/gen-protocol-schema.mjs → repository root is two levels up.
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = join(root, 'protocol', 'schema');

function main(): void {
  const files = generateSchemas();
  mkdirSync(dir, { recursive: true });
  const changed: string[] = [];
  for (const [name, content] of Object.entries(files)) {
    let old: string | undefined;
    try {
      old = readFileSync(join(dir, name), 'utf8');
    } catch {
      old = undefined;
    }
    if (old === content) continue;
    writeFileSync(join(dir, name), content);
    changed.push(name);
  }
  const removed = readdirSync(dir).filter((f) => f.endsWith('.json') && !(f in files));
  for (const f of removed) rmSync(join(dir, f));
  // A script's own report goes to stderr, like every diagnostic in this repository.
  process.stderr.write(
    `protocol/schema: ${Object.keys(files).length} files, ${changed.length} written, ${removed.length} removed` +
      (changed.length + removed.length ? ` (${[...changed, ...removed.map((f) => `-${f}`)].join(', ')})` : '') +
      '\n',
  );
}

main();
