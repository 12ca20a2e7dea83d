// StructuredOutput: the synthetic tool through which a --json-schema answer is given (as in Claude Code). The
// input is validated against the caller's JSON Schema with ajv; validation errors go back to the model, which
// retries (the session bounds the retries).
import * as z from 'zod/mini';
import { compileJsonSchema } from '../json-schema.js';
import type { Tool } from '../tool.js';

export const STRUCTURED_OUTPUT_TOOL_NAME = 'StructuredOutput';

/** The API needs an object schema for tool input; other schemas are wrapped as {value: …}. */
function isObjectSchema(s: Record<string, unknown>): boolean {
  return s['type'] === 'object' || (s['type'] === undefined && typeof s['properties'] === 'object');
}

export function createStructuredOutputTool(schema: Record<string, unknown>): Tool<Record<string, unknown>, unknown> {
  const wrapped = !isObjectSchema(schema);
  const inputJsonSchema = wrapped ? { type: 'object', properties: { value: schema }, required: ['value'], additionalProperties: false } : schema;
  const check = compileJsonSchema(inputJsonSchema);
  return {
    name: STRUCTURED_OUTPUT_TOOL_NAME,
    description:
      'Give your final answer by calling this tool exactly once, at the end of your work, with input that matches its schema. Do not answer in plain text.',
    inputSchema: z.record(z.string(), z.unknown()),
    inputJsonSchema,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: 'cancel',
    permissionSubject: () => ({ kind: 'session' }),
    validateInput: (input) => {
      const errors = check(input);
      return errors.length ? { ok: false, message: `The output does not match the required JSON schema: ${errors.slice(0, 10).join('; ')}. Call ${STRUCTURED_OUTPUT_TOOL_NAME} again with corrected input.` } : { ok: true };
    },
    call: async (input) => ({ data: wrapped ? input['value'] : input, content: 'Structured output received.' }),
  };
}
