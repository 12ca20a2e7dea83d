// An MCP server's tool as an agentd Tool. The executor's pipeline applies as for built-ins (schema, hooks,
// permission rules `mcp__server[__tool|__*]`, canUseTool); the tool itself only validates against the server's
// JSON Schema, calls, and maps the result. Its annotations are hints, never permissions.
import type { CallToolResult, Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import * as z from 'zod/mini';
import type { ImageBlock, TextBlock } from '../model/types.js';
import { type JsonSchemaCheck, compileJsonSchema } from '../tools/json-schema.js';
import type { AnyTool, ToolCallContext, ToolOutcome } from '../tools/tool.js';
import { mcpToolName } from '../util/mcp-names.js';

export interface AdaptOptions {
  server: string;
  /** Where the server's definition came from (`sdk`, `dynamic`, `project`, …). */
  source: string;
  timeoutMs: number;
  /** Text beyond this many characters is cut with a marker (MAX_MCP_OUTPUT_TOKENS × 4). */
  maxOutputChars: number;
  call(params: { name: string; arguments: Record<string, unknown> }, opts: RequestOptions): Promise<unknown>;
}

type Block = TextBlock | ImageBlock;

/** MCP content → what the model sees, as Claude Code maps it (README "Decisions"). */
/** A string field of an MCP content block, or `fallback` when it is missing or not a string (never "[object Object]"). */
function text(v: unknown, fallback: string): string {
  return typeof v === 'string' ? v : fallback;
}

export function mapContent(server: string, content: readonly unknown[]): Block[] {
  const out: Block[] = [];
  for (const raw of content) {
    const c = raw as Record<string, unknown>;
    switch (c['type']) {
      case 'text':
        out.push({ type: 'text', text: text(c['text'], '') });
        break;
      case 'image':
        out.push({ type: 'image', source: { type: 'base64', media_type: text(c['mimeType'], 'image/png'), data: text(c['data'], '') } });
        break;
      case 'audio':
        out.push({ type: 'text', text: `[Audio from ${server}: ${text(c['mimeType'], 'audio')}, ${text(c['data'], '').length} base64 characters, not shown]` });
        break;
      case 'resource_link':
        out.push({ type: 'text', text: `[Resource link: ${String(c['name'] ?? c['uri'])}] ${String(c['uri'])}${typeof c['description'] === 'string' && c['description'] ? ` (${c['description']})` : ''}` });
        break;
      case 'resource': {
        const r = (c['resource'] ?? {}) as Record<string, unknown>;
        const prefix = `[Resource from ${server} at ${String(r['uri'])}] `;
        if (typeof r['text'] === 'string') out.push({ type: 'text', text: `${prefix}${r['text']}` });
        else if (typeof r['blob'] === 'string' && text(r['mimeType'], '').startsWith('image/')) {
          out.push({ type: 'image', source: { type: 'base64', media_type: String(r['mimeType']), data: r['blob'] } });
        } else out.push({ type: 'text', text: `${prefix}(binary ${text(r['mimeType'], 'data')}, not shown)` });
        break;
      }
      default:
        out.push({ type: 'text', text: JSON.stringify(c) });
    }
  }
  return out;
}

/** Caps the text the model gets; images pass unchanged. */
export function capContent(blocks: Block[], maxChars: number): Block[] {
  let left = maxChars;
  const out: Block[] = [];
  for (const b of blocks) {
    if (b.type !== 'text') {
      out.push(b);
      continue;
    }
    if (b.text.length <= left) {
      out.push(b);
      left -= b.text.length;
      continue;
    }
    const total = blocks.reduce((n, x) => n + (x.type === 'text' ? x.text.length : 0), 0);
    out.push({ type: 'text', text: `${b.text.slice(0, Math.max(0, left))}\n\n[agentd: MCP tool output cut at ${maxChars} of ${total} characters (MAX_MCP_OUTPUT_TOKENS)]` });
    break;
  }
  return out;
}

function isObjectSchema(s: unknown): s is Record<string, unknown> {
  return typeof s === 'object' && s !== null && !Array.isArray(s);
}

export function adaptMcpTool(t: McpTool, o: AdaptOptions): AnyTool {
  const name = mcpToolName(o.server, t.name);
  const schema = isObjectSchema(t.inputSchema) ? (t.inputSchema as Record<string, unknown>) : { type: 'object' };
  // Compiled on the tool's first call, not when it is listed: loading ajv and compiling every listed tool's schema
  // while the servers connect took CPU from the servers' own start and from the first turn, for tools that may
  // never be called (BENCHMARKS.md, mcp-stdio-10). A schema ajv cannot compile is not valid JSON Schema: every
  // call is refused with the reason, and the model still sees the tool as the server described it.
  let compiled: JsonSchemaCheck | undefined;
  const check = (input: unknown): string[] => {
    if (!compiled) {
      try {
        compiled = compileJsonSchema(schema);
      } catch (e) {
        const why = e instanceof Error ? e.message : String(e);
        compiled = () => [`the MCP server "${o.server}" gave this tool an input schema that is not valid JSON Schema (${why})`];
      }
    }
    return compiled(input);
  };
  // Annotations are the server's own claims, hints that a server may get wrong or lie in: readOnlyHint lets calls
  // run alongside other safe calls, and never decides whether the host is asked (Claude Code 2.1.330 asks for a
  // readOnlyHint tool in default, acceptEdits and plan mode and denies it in dontAsk, measured).
  const readOnly = t.annotations?.readOnlyHint === true;
  return {
    name,
    description: t.description ?? '',
    inputSchema: z.record(z.string(), z.unknown()),
    inputJsonSchema: schema,
    isConcurrencySafe: () => readOnly,
    isReadOnly: () => false,
    interruptBehavior: 'cancel',
    mcpServer: { name: o.server, source: o.source },
    permissionSubject: () => ({ kind: 'none' }),
    validateInput: (input: Record<string, unknown>) => {
      const errors = check(input);
      return errors.length ? { ok: false, message: `InputValidationError: ${name} input does not match its schema: ${errors.slice(0, 10).join('; ')}` } : { ok: true };
    },
    call: async (input: Record<string, unknown>, ctx: ToolCallContext): Promise<ToolOutcome> => {
      let result: CallToolResult;
      try {
        result = (await o.call(
          { name: t.name, arguments: input },
          {
            signal: ctx.signal,
            timeout: o.timeoutMs,
            maxTotalTimeout: o.timeoutMs,
            onprogress: (p) =>
              ctx.progress({
                kind: 'output',
                output: `${p.message ?? `${p.progress}${p.total !== undefined ? `/${p.total}` : ''}`}\n`,
                progress: p.progress,
                ...(p.total !== undefined ? { total: p.total } : {}),
              }),
          },
        )) as CallToolResult;
      } catch (e) {
        if (ctx.signal.aborted) throw e;
        throw new Error(`MCP server "${o.server}" failed to run ${t.name}: ${e instanceof Error ? e.message : String(e)}`);
      }
      let blocks = mapContent(o.server, Array.isArray(result.content) ? result.content : []);
      if (blocks.length === 0 && result.structuredContent !== undefined) blocks = [{ type: 'text', text: JSON.stringify(result.structuredContent) }];
      blocks = capContent(blocks, o.maxOutputChars);
      const allText = blocks.every((b) => b.type === 'text');
      const content = allText ? blocks.map((b) => (b as TextBlock).text).join('\n') : blocks;
      const data = result.structuredContent !== undefined ? { content: blocks, structuredContent: result.structuredContent } : blocks;
      if (result.isError) {
        const text = allText ? (content as string) : 'tool error';
        return { data, content: `Error from MCP server "${o.server}" (${t.name}): ${text}`, isError: true };
      }
      return { data, content: allText && blocks.length === 0 ? '' : content };
    },
  };
}
