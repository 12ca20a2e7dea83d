// protocol/schema/ is generated from the zod schemas and checked in for other languages. This fails when the
// checked-in files differ from what the generator produces now (the fix: npm run gen:schema), and checks the
// policies the files promise: inbound schemas never forbid unknown fields, outbound frames always do.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { NAMED_SCHEMAS, PROTOCOL_LEVEL } from '../../protocol/src/index.js';
import {
  JSON_SCHEMA_DIALECT,
  PROTOCOL_VERSION,
  SCHEMA_DIRECTIONS,
  SCHEMA_NAMES,
  generateSchemas,
} from '../../protocol/src/json-schema.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SCHEMA_DIR = join(ROOT, 'protocol', 'schema');
const STALE = 'protocol/schema is stale: run npm run gen:schema';

const generated = generateSchemas();
const onDisk = readdirSync(SCHEMA_DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

function parse(text: string): unknown {
  return JSON.parse(text) as unknown;
}

/** Every value reachable under `key` anywhere in a JSON value, with its path. */
function collect(v: unknown, key: string, path = '$', out: Array<{ path: string; value: unknown }> = []): typeof out {
  if (Array.isArray(v)) v.forEach((x, i) => collect(x, key, `${path}[${i}]`, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === key) out.push({ path: `${path}.${k}`, value: x });
      collect(x, key, `${path}.${k}`, out);
    }
  }
  return out;
}

describe('protocol/schema drift', () => {
  it('holds exactly the generated files', () => {
    expect(onDisk, STALE).toEqual(Object.keys(generated).sort());
  });

  it.each(Object.keys(generated).sort())('%s matches the generator', (file) => {
    let actual: string | undefined;
    try {
      actual = readFileSync(join(SCHEMA_DIR, file), 'utf8');
    } catch {
      actual = undefined;
    }
    expect(actual, `${STALE} (${file})`).toBe(generated[file]);
  });

  it('is deterministic', () => {
    expect(generateSchemas()).toEqual(generated);
  });
});

describe('protocol/schema content', () => {
  it('index.json lists every named schema with the protocol level and version', () => {
    expect(parse(generated['index.json'] ?? '')).toEqual({
      protocolVersion: PROTOCOL_VERSION,
      protocolLevel: PROTOCOL_LEVEL,
      dialect: JSON_SCHEMA_DIALECT,
      schemas: Object.keys(NAMED_SCHEMAS)
        .sort()
        .map((name) => ({
          name,
          file: `${name}.json`,
          direction: SCHEMA_DIRECTIONS[name as keyof typeof SCHEMA_DIRECTIONS],
          io: SCHEMA_DIRECTIONS[name as keyof typeof SCHEMA_DIRECTIONS] === 'inbound' ? 'input' : 'output',
        })),
    });
  });

  it('every schema compiles under draft 2020-12 in ajv strict mode', () => {
    const ajv = new Ajv2020({ strict: true });
    for (const name of SCHEMA_NAMES) {
      const schema = parse(generated[`${name}.json`] ?? '') as Record<string, unknown>;
      expect(schema['$schema']).toBe(JSON_SCHEMA_DIALECT);
      expect(schema['title']).toBe(name);
      expect(() => ajv.compile(schema), name).not.toThrow();
    }
  });

  it('inbound schemas never forbid unknown fields (liberal in what agentd accepts)', () => {
    const closed = SCHEMA_NAMES.filter((n) => SCHEMA_DIRECTIONS[n] === 'inbound').flatMap((name) =>
      collect(parse(generated[`${name}.json`] ?? ''), 'additionalProperties')
        .filter((p) => p.value === false)
        .map((p) => `${name} ${p.path}`),
    );
    expect(closed).toEqual([]);
  });

  it('outbound frames forbid fields agentd does not document (exact in what it sends)', () => {
    const open = SCHEMA_NAMES.filter((n) => SCHEMA_DIRECTIONS[n] === 'outbound' && n !== 'OutboundFrame').filter((name) => {
      const s = parse(generated[`${name}.json`] ?? '') as Record<string, unknown>;
      return s['additionalProperties'] !== false;
    });
    expect(open).toEqual([]);
  });

  it('CHANGELOG.md has an entry for the current protocol version at the top', () => {
    const changelog = readFileSync(join(ROOT, 'protocol', 'CHANGELOG.md'), 'utf8');
    const first = /^## \[?([0-9]+\.[0-9]+\.[0-9]+)\]?/m.exec(changelog);
    expect(first?.[1]).toBe(PROTOCOL_VERSION);
  });
});
