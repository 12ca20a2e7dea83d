// `--permission-prompt-tool mcp__server__tool`: "ask" decisions go to that MCP tool, Claude Code's contract
// (protocol.md §6.6): it is called with `{tool_name, input, tool_use_id}` and must answer with exactly one text
// block holding the JSON of a permission result (`{"behavior":"allow","updatedInput":{…}}` or
// `{"behavior":"deny","message":"…"}`). Anything else — the tool missing (its server failed), an error result,
// other content, JSON that is not such a result, an abort — rejects, which the permission layer turns into a
// deny: it fails closed.
import * as z from 'zod/mini';
import type { HostAnswer, PermissionPrompter, PromptRequest } from '../permissions/layer.js';
import type { AnyTool, ToolEnvironment } from '../tools/tool.js';

const Answer = z.lazy(() => z.union([
  z.looseObject({ behavior: z.literal('allow'), updatedInput: z.optional(z.record(z.string(), z.unknown())) }),
  z.looseObject({ behavior: z.literal('deny'), message: z.string(), interrupt: z.optional(z.boolean()) }),
]));

export interface McpPromptToolDeps {
  toolName: string;
  tools: { get(name: string): AnyTool | undefined };
  /** Resolves once MCP servers have connected or given up (the tool's server may still be starting). */
  ready(): Promise<void>;
  env: ToolEnvironment;
  cwd(): string;
}

export function createMcpPromptToolPrompter(d: McpPromptToolDeps): PermissionPrompter {
  return {
    async ask(req: PromptRequest, signal: AbortSignal): Promise<HostAnswer> {
      await d.ready();
      const tool = d.tools.get(d.toolName);
      if (!tool) throw new Error(`the permission prompt tool ${d.toolName} is not available (is its MCP server connected?).`);
      const input = { tool_name: req.toolName, input: req.input, tool_use_id: req.toolUseId };
      let out;
      try {
        out = await tool.call(input, {
          toolUseId: req.toolUseId,
          shared: { cwd: d.cwd(), additionalDirectories: [] },
          env: d.env,
          signal,
          progress: () => undefined,
          // The host named this tool to answer permission prompts: agentd calls it on the host's behalf.
          approval: { by: 'host' },
        });
      } catch (e) {
        if (signal.aborted) throw new Error('Permission prompt was aborted.');
        throw e;
      }
      if (out.isError || typeof out.content !== 'string') {
        throw new Error(`the permission prompt tool ${d.toolName} did not answer with one text block${out.isError ? ` (it failed: ${String(out.content).slice(0, 200)})` : ''}.`);
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(out.content);
      } catch {
        throw new Error(`the permission prompt tool ${d.toolName} answered with text that is not JSON.`);
      }
      const r = Answer.safeParse(parsed);
      if (!r.success) throw new Error(`the permission prompt tool ${d.toolName} answered with JSON that is not a permission result.`);
      const a = r.data;
      return a.behavior === 'deny'
        ? { behavior: 'deny', message: a.message, ...(a.interrupt ? { interrupt: true } : {}) }
        : { behavior: 'allow', ...(a.updatedInput ? { updatedInput: a.updatedInput } : {}) };
    },
  };
}
