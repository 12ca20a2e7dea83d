// The one token estimate: ~4 characters a token, ~1,600 an image or document page; the context size is the
// API's count of the last call plus an estimate of what came after it, or the whole request estimated.
import { describe, expect, it } from 'vitest';
import { callTokens, contextTokens, messageTokens, outputTokens, toolResultChars, valueTokens } from '../../../src/model/token-estimate.js';

describe('token estimate', () => {
  it('counts text at four characters a token and images at 1,600 tokens', () => {
    expect(valueTokens('abcde')).toBe(2);
    expect(valueTokens({ a: 1 })).toBe(2); // {"a":1}
    expect(toolResultChars([{ type: 'text', text: 'x'.repeat(10) }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }])).toBe(10 + 6400);
    expect(
      messageTokens([
        { role: 'user', content: 'u'.repeat(8) },
        { role: 'assistant', content: [{ type: 'text', text: 't'.repeat(4) }, { type: 'thinking', thinking: 'k'.repeat(4), signature: 's' }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'r'.repeat(4) }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
      ]),
    ).toBe(2 + 1 + 1 + 1 + 1600);
    expect(outputTokens([{ type: 'text', text: 'abcd' }, { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { a: 1 } }])).toBe(3);
  });

  it('sizes the next request from the last call’s count plus what came after, or estimates it whole', () => {
    const call = { input_tokens: 100, cache_creation_input_tokens: 20, cache_read_input_tokens: 30, output_tokens: 7 };
    expect(callTokens(call)).toBe(157);
    expect(contextTokens({ counted: { tokens: 157, since: [{ role: 'user', content: 'x'.repeat(40) }] } })).toBe(167);
    expect(
      contextTokens({ counted: undefined, system: [{ type: 'text', text: 's'.repeat(400) }], tools: [{ name: 'T', description: '', input_schema: { type: 'object' } }], messages: [{ role: 'user', content: 'm'.repeat(40) }] }),
    ).toBe(Math.ceil((400 + JSON.stringify([{ name: 'T', description: '', input_schema: { type: 'object' } }]).length) / 4) + 10);
  });
});
