// WebFetch through the official SDK (issue 14.7): the page is fetched from a loopback server (allowed with
// AGENTD_WEBFETCH_ALLOW_PRIVATE=1; refused without), and the prompt is answered by the side model — the session's
// own model, or ANTHROPIC_SMALL_FAST_MODEL when set, as Claude Code 2.1.330 picks it (measured) — here the
// scripted model, whose rule matches the side request by its text or its tools.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, query, scriptedRun, toolResults } from '../support/sdk-run.js';

const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>Release notes</title></head><body><h1>v2</h1><p>Adds <b>sandboxing</b>.</p></body></html>'));
let url = '';
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/notes`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const scenario = () => ({
  rules: [
    // The side request: the small, fast model, asked about the converted page.
    { when: { lastUserText: 'Web page content:' }, reply: { content: [{ type: 'text' as const, text: 'Version 2 adds sandboxing.' }] } },
    { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use' as const, id: 'wf', name: 'WebFetch', input: { url, prompt: 'What does v2 add?' } }] } },
    { when: { hasToolResults: true }, reply: { content: [{ type: 'text' as const, text: 'done' }] } },
  ],
});

describe('WebFetch through the SDK', () => {
  it('answers the prompt with the small, fast model over the page converted to markdown', async () => {
    const run = scriptedRun(scenario(), { env: { AGENTD_WEBFETCH_ALLOW_PRIVATE: '1' } });
    const msgs = await collect(query({ prompt: 'go', options: run.options({ allowedTools: ['WebFetch'] }) }));
    expect(toolResults(msgs)).toEqual([['wf', false, 'Version 2 adds sandboxing.']]);
    // No ANTHROPIC_SMALL_FAST_MODEL: the session's model answers (claude-opus-5-5, the default).
    expect(run.requests().map((r) => r.model)).toEqual(['claude-opus-5-5', 'claude-opus-5-5', 'claude-opus-5-5']);
    const side = run.requests()[1];
    const content = side?.messages[0]?.content;
    expect(typeof content === 'string' ? content.split('\n').slice(0, 8) : content).toEqual(['Web page content:', '---', '# Release notes', '', '# v2', '', 'Adds **sandboxing**.', '---']);
    expect(msgs.at(-1)).toMatchObject({ subtype: 'success', result: 'done' });
  });

  it('without the allowance, a loopback address is refused and no side request is made', async () => {
    const run = scriptedRun(scenario());
    const msgs = await collect(query({ prompt: 'go', options: run.options({ allowedTools: ['WebFetch'] }) }));
    expect(toolResults(msgs)).toEqual([
      [
        'wf',
        true,
        `<tool_use_error>Error: Failed to fetch ${url}: 127.0.0.1 is a private, loopback or link-local address; WebFetch fetches public addresses only (AGENTD_WEBFETCH_ALLOW_PRIVATE=1 allows them).</tool_use_error>`,
      ],
    ]);
    expect(run.requests()).toHaveLength(2);
  });

  it('WebSearch: one request to the small, fast model with the server web search tool; its answer is the result', async () => {
    const run = scriptedRun({
      rules: [
        { when: { model: 'claude-haiku-4-5', hasTool: 'web_search' }, reply: { content: [{ type: 'text' as const, text: 'Searched: nothing new.' }] } },
        { when: { hasToolResults: false }, reply: { content: [{ type: 'tool_use' as const, id: 'ws', name: 'WebSearch', input: { query: 'agentd news', blocked_domains: ['spam.example'] } }] } },
        { when: { hasToolResults: true }, reply: { content: [{ type: 'text' as const, text: 'done' }] } },
      ],
    });
    const msgs = await collect(query({ prompt: 'go', options: run.options({ env: { ...run.env, ANTHROPIC_SMALL_FAST_MODEL: 'claude-haiku-4-5' } }) }));
    expect(toolResults(msgs)).toEqual([
      ['ws', false, 'Web search results for query: "agentd news"\n\nSearched: nothing new.\n\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.'],
    ]);
    const side = run.requests().find((r) => r.model === 'claude-haiku-4-5');
    expect({ tools: side?.tools, messages: side?.messages }).toEqual({
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 8, blocked_domains: ['spam.example'] }],
      messages: [{ role: 'user', content: 'Perform a web search for the query: agentd news' }],
    });
  });
});
