// An MCP tool as an agentd Tool: a schema that is not valid JSON Schema refuses every call with the reason (the
// model still sees the tool as described), a valid one checks inputs, and the call never reaches the server
// with an input that fails.
import { describe, expect, it, vi } from 'vitest';
import { adaptMcpTool } from '../../../src/mcp/tool-adapter.js';
import { compileJsonSchema } from '../../../src/tools/json-schema.js';

// The real compiler, counted: a listed tool's schema is compiled on its first call, once.
vi.mock('../../../src/tools/json-schema.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../../src/tools/json-schema.js')>();
  return { ...real, compileJsonSchema: vi.fn(real.compileJsonSchema) };
});
import { callCtx } from './support.js';

const VCTX = callCtx();

function adapt(inputSchema: Record<string, unknown>, calls: unknown[]) {
  return adaptMcpTool({ name: 'look up', description: 'Looks up', inputSchema: inputSchema as { type: 'object' } }, {
    server: 'srv',
    source: 'dynamic',
    timeoutMs: 1000,
    maxOutputChars: 100,
    call: async (params) => {
      calls.push(params);
      return { content: [{ type: 'text', text: 'ok' }] };
    },
  });
}

describe('adaptMcpTool', () => {
  it('a schema that is not valid JSON Schema: offered as given, every call refused naming the server', () => {
    const schema = { type: 'object', properties: { q: { type: 'no-such-type' } } };
    const calls: unknown[] = [];
    const t = adapt(schema, calls);
    expect([t.name, t.inputJsonSchema]).toEqual(['mcp__srv__look_up', schema]);
    const v = t.validateInput?.({ q: 'x' }, VCTX);
    expect(v).toEqual({ ok: false, message: expect.stringMatching(/^InputValidationError: mcp__srv__look_up input does not match its schema: the MCP server "srv" gave this tool an input schema that is not valid JSON Schema \(.+\)$/) });
    expect(calls).toEqual([]);
  });

  it('a valid schema checks inputs', () => {
    const t = adapt({ type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, []);
    expect(t.validateInput?.({ q: 'x' }, VCTX)).toEqual({ ok: true });
    expect(t.validateInput?.({ q: 1 }, VCTX)).toMatchObject({ ok: false });
  });

  it('compiles the schema on the first call, not when the tool is listed, and only once', () => {
    const compile = vi.mocked(compileJsonSchema);
    compile.mockClear();
    const t = adapt({ type: 'object', properties: { q: { type: 'string' } } }, []);
    expect(compile).toHaveBeenCalledTimes(0);
    expect([t.validateInput?.({ q: 'x' }, VCTX), t.validateInput?.({ q: 2 }, VCTX)]).toEqual([{ ok: true }, { ok: false, message: 'InputValidationError: mcp__srv__look_up input does not match its schema: /q must be string' }]);
    expect(compile).toHaveBeenCalledTimes(1);
  });
});
