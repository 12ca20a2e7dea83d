// WebSearch through the server-side web search tool: the request the side model gets, and the answer's blocks
// (search results, cited text) passed through.
import type { WebSearchOutput as SdkWebSearchOutput } from '@anthropic-ai/claude-agent-sdk/sdk-tools';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import type { AssistantBlock, ServerToolDefinition } from '../../../src/model/types.js';
import { type WebSearchOutput, createWebSearchTool } from '../../../src/tools/builtin/web-search.js';
import type { SideModel, SideRequest } from '../../../src/tools/tool.js';
import { type Sandbox, ok, run, sandbox } from './support.js';

let sb: Sandbox;
beforeEach(() => {
  sb = sandbox();
});
afterEach(() => sb.cleanup());

const BLOCKS: AssistantBlock[] = [
  { type: 'text', text: "I'll search." },
  { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'agentd sandbox' } },
  {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_1',
    content: [
      { type: 'web_search_result', title: 'Sandboxing', url: 'https://docs.example/sandbox', encrypted_content: 'x', page_age: null },
      { type: 'web_search_result', title: 'Runtime', url: 'https://github.example/srt', encrypted_content: 'y' },
    ],
  },
  { type: 'text', text: 'It uses bubblewrap.', citations: [{ type: 'web_search_result_location', url: 'https://docs.example/sandbox', title: 'Sandboxing', cited_text: 'bubblewrap' }] },
];

function fakeSide(blocks: AssistantBlock[]): { side: SideModel; asked: Array<SideRequest & { tools?: ServerToolDefinition[] }> } {
  const asked: Array<SideRequest & { tools?: ServerToolDefinition[] }> = [];
  return { asked, side: { model: 'claude-haiku-4-5', ask: async () => '', complete: async (req) => (asked.push(req), blocks) } };
}

const withSide = (side: SideModel): Sandbox => ({ ...sb, ctx: (extra) => ({ ...sb.ctx(extra), env: { ...sb.env, sideModel: side } }) });

describe('WebSearch', () => {
  it('asks the side model with the server web search tool and passes results and citations through', async () => {
    const { side, asked } = fakeSide(BLOCKS);
    let t = 0;
    const out = await ok<WebSearchOutput>(createWebSearchTool({ now: () => (t += 1500) }), { query: 'agentd sandbox', allowed_domains: ['docs.example'] }, withSide(side));
    expect(asked.map((a) => ({ prompt: a.prompt, tools: a.tools, maxTokens: a.maxTokens }))).toEqual([
      { prompt: 'Perform a web search for the query: agentd sandbox', tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 8, allowed_domains: ['docs.example'] }], maxTokens: 4096 },
    ]);
    const hits = [
      { title: 'Sandboxing', url: 'https://docs.example/sandbox' },
      { title: 'Runtime', url: 'https://github.example/srt' },
    ];
    expect(out).toEqual({
      data: { query: 'agentd sandbox', results: ["I'll search.", { tool_use_id: 'srvtoolu_1', content: hits }, 'It uses bubblewrap. ([Sandboxing](https://docs.example/sandbox))'], durationSeconds: 1.5, searchCount: 1 },
      content: `Web search results for query: "agentd sandbox"\n\nI'll search.\n\nLinks: ${JSON.stringify(hits)}\n\nIt uses bubblewrap. ([Sandboxing](https://docs.example/sandbox))\n\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.`,
    });
    expectTypeOf<WebSearchOutput>().toExtend<SdkWebSearchOutput>();
  });

  it('refuses allowed and blocked domains together, a one-letter query, and a session without a model', async () => {
    const { side } = fakeSide(BLOCKS);
    expect(await run(createWebSearchTool(), { query: 'x y', allowed_domains: ['a'], blocked_domains: ['b'] }, withSide(side))).toEqual({
      kind: 'rejected',
      message: 'Error: Cannot specify both allowed_domains and blocked_domains in the same request',
    });
    expect((await run(createWebSearchTool(), { query: 'x' }, withSide(side))).kind).toBe('invalid');
    expect(await run(createWebSearchTool(), { query: 'news' }, sb)).toEqual({ kind: 'error', message: 'WebSearch needs a model to run the search, and this session has none.' });
  });
});
