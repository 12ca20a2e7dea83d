// WebSearch: Claude Code's tool, run through the Messages API's server-side web search tool
// (`web_search_20250305`): one secondary request to the small, fast model (ToolEnvironment.sideModel) with the
// server tool and the query; the API searches, and the answer's blocks come back — the search results (title
// and URL of each hit) and the model's text with its citations, both passed through to the model that asked.
// allowed_domains / blocked_domains go to the server tool as they are (one or the other, as Claude Code
// requires). Without a side model (a bare embedding) the tool is an error, never a silent empty answer.
import * as z from 'zod/mini';
import type { AssistantBlock } from '../../model/types.js';
import type { Tool, ToolCallContext, ToolOutcome } from '../tool.js';

/** At most this many searches per call (Claude Code's limit). */
const MAX_USES = 8;

export const WebSearchInput = z.lazy(() => z.strictObject({
  query: z.string().check(z.minLength(2), z.describe('The search query to use')),
  allowed_domains: z.optional(z.array(z.string()).check(z.describe('Only include search results from these domains'))),
  blocked_domains: z.optional(z.array(z.string()).check(z.describe('Never include search results from these domains'))),
}));
export type WebSearchInput = z.infer<typeof WebSearchInput>;

export interface WebSearchHit {
  title: string;
  url: string;
}
export interface WebSearchOutput {
  query: string;
  results: Array<{ tool_use_id: string; content: WebSearchHit[] } | string>;
  durationSeconds: number;
  searchCount?: number;
}

const DESCRIPTION = `- Allows Claude to search the web and use the results to inform responses
- Provides up-to-date information for current events and recent data
- Returns search result information formatted as search result blocks, including links as markdown hyperlinks
- Use this tool for accessing information beyond Claude's knowledge cutoff
- Searches are performed automatically within a single API call

Usage notes:
  - Domain filtering is supported to include or block specific websites (one or the other, not both)
  - After answering, you MUST include the sources you used as markdown hyperlinks`;

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The hits of a web_search_tool_result block (an error result has none). */
function hitsOf(b: Record<string, unknown>): WebSearchHit[] {
  const content = b['content'];
  if (!Array.isArray(content)) return [];
  return content.flatMap((h: unknown) => {
    if (typeof h !== 'object' || h === null) return [];
    const r = h as Record<string, unknown>;
    return r['type'] === 'web_search_result' ? [{ title: str(r['title']), url: str(r['url']) }] : [];
  });
}

/** A text block with its citations kept: each cited source follows as a markdown link. */
function citedText(text: string, citations: unknown[] | null | undefined): string {
  const links = new Map<string, string>();
  for (const c of citations ?? []) {
    if (typeof c !== 'object' || c === null) continue;
    const r = c as Record<string, unknown>;
    const url = str(r['url']);
    if (url) links.set(url, str(r['title']) || url);
  }
  if (links.size === 0) return text;
  return `${text} (${[...links].map(([url, title]) => `[${title}](${url})`).join(', ')})`;
}

export function toSearchOutput(query: string, blocks: readonly AssistantBlock[], durationSeconds: number): WebSearchOutput {
  const results: WebSearchOutput['results'] = [];
  let searchCount = 0;
  for (const b of blocks) {
    if (b.type === 'text') {
      const t = citedText(b.text, b.citations).trim();
      if (t) results.push(t);
    } else if (b.type === 'web_search_tool_result') {
      results.push({ tool_use_id: str(b['tool_use_id']), content: hitsOf(b) });
    } else if (b.type === 'server_tool_use') searchCount++;
  }
  return { query, results, durationSeconds, searchCount };
}

export function searchResultText(out: WebSearchOutput): string {
  const parts = out.results.map((r) => (typeof r === 'string' ? r : r.content.length ? `Links: ${JSON.stringify(r.content)}` : 'No links found.'));
  return `Web search results for query: "${out.query}"\n\n${parts.join('\n\n')}\n\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.`;
}

export function createWebSearchTool(opts: { now?: () => number } = {}): Tool<WebSearchInput, WebSearchOutput> {
  const now = opts.now ?? Date.now;
  return {
    name: 'WebSearch',
    description: DESCRIPTION,
    inputSchema: WebSearchInput,
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: 'cancel',
    validateInput(input) {
      if (input.allowed_domains?.length && input.blocked_domains?.length) return { ok: false, message: 'Error: Cannot specify both allowed_domains and blocked_domains in the same request' };
      return { ok: true };
    },
    async call(input, ctx: ToolCallContext): Promise<ToolOutcome<WebSearchOutput>> {
      const side = ctx.env.sideModel;
      if (!side) throw new Error('WebSearch needs a model to run the search, and this session has none.');
      const started = now();
      const blocks = await side.complete({
        system: 'You are an assistant for performing a web search tool use',
        prompt: `Perform a web search for the query: ${input.query}`,
        maxTokens: 4096,
        tools: [
          {
            type: 'web_search_20250305',
            name: 'web_search',
            max_uses: MAX_USES,
            ...(input.allowed_domains?.length ? { allowed_domains: input.allowed_domains } : {}),
            ...(input.blocked_domains?.length ? { blocked_domains: input.blocked_domains } : {}),
          },
        ],
        signal: ctx.signal,
      });
      const out = toSearchOutput(input.query, blocks, (now() - started) / 1000);
      return { data: out, content: searchResultText(out) };
    },
  };
}
