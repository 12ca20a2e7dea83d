// JSON Schema validation, in one place: tools whose input schema is JSON Schema rather than zod (StructuredOutput's
// caller-given schema, MCP tools' `inputSchema`) validate with ajv here. ajv is CommonJS and loaded on first use.
import { createRequire } from 'node:module';

interface AjvLike {
  compile(schema: unknown): ((data: unknown) => boolean) & { errors?: Array<{ instancePath: string; message?: string }> | null };
}

let ajv: AjvLike | undefined;

function instance(): AjvLike {
  if (!ajv) {
    const require = createRequire(import.meta.url);
    const Ajv = require('ajv') as { default: new (o: object) => AjvLike };
    // strict: false — schemas come from third parties and may carry keywords ajv does not know.
    ajv = new Ajv.default({ allErrors: true, strict: false, validateSchema: false });
  }
  return ajv;
}

/** Returns the list of problems (empty when valid), e.g. `/count must be integer`. */
export type JsonSchemaCheck = (data: unknown) => string[];

/**
 * Compiles a schema. A schema ajv cannot compile (not valid JSON Schema) throws; callers decide whether that
 * makes the tool unusable or its inputs unchecked.
 */
export function compileJsonSchema(schema: Record<string, unknown>): JsonSchemaCheck {
  // A declared dialect ajv's default build does not bundle (2020-12) would fail the compile; the keywords tools
  // use are read the same way.
  const { $schema: _dialect, ...rest } = schema;
  const validate = instance().compile(rest);
  return (data) => (validate(data) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`));
}
