// `get_context_usage`: Claude Code's context breakdown (SDKControlGetContextUsageResponse), estimated locally.
// Claude Code counts each category with the token-count API (`detail:"full"`) or from the last response plus
// local estimates (`"summary"`); agentd makes no API call for either. Each category is estimated at about four
// characters a token (model/token-estimate.ts: the rule automatic compaction and the scripted model use); the total is the API's own count
// of the last request (its usage: input, cache reads and writes, plus the answer) and an estimate of what was
// appended since, when a model call has happened (`agentd_estimate: "api_plus_estimate"`). Categories, ids and
// colours are Claude Code's: system prompt, system tools, MCP tools, memory files, messages, free space. The
// window comes from session/context-window.ts.
import type { GetContextUsageResponse } from '../../protocol/src/index.js';
import { type CallTokens, IMAGE_TOKENS, callTokens, contextTokens, tokensForChars, toolResultChars, valueTokens } from '../model/token-estimate.js';
import type { ApiMessage, SystemBlock, ToolDefinition } from '../model/types.js';
import { contextWindowFor } from '../session/context-window.js';

/** What the next model request would carry, as the session would build it now. */
export interface ContextSnapshot {
  model: string;
  system: readonly SystemBlock[];
  tools: readonly ToolDefinition[];
  messages: readonly ApiMessage[];
  /** Text sent before the first user message (environment, memory files). */
  context?: readonly string[];
  memoryFiles?: ReadonlyArray<{ path: string; kind: 'user' | 'project' | 'local'; text: string }>;
  betas?: readonly string[];
  /** The size at which the thread is compacted automatically; undefined: no automatic compaction. */
  autoCompactThreshold?: number;
  /** The usage the API reported for the last model call of the session, if any. */
  lastCall?: CallTokens;
}

/** Where the last assistant message is: what the last model call answered (everything up to it was counted by the API). */
function lastAssistantIndex(messages: readonly ApiMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if ((messages[i] as ApiMessage).role === 'assistant') return i;
  return -1;
}

const GRID_ROWS = 10;
const GRID_COLUMNS = 10;

/** A block's field whatever its variant (the blocks are typed data, several variants with open shapes). */
function field(block: object, key: string): unknown {
  return Reflect.get(block, key) as unknown;
}

type Breakdown = NonNullable<GetContextUsageResponse['messageBreakdown']>;

function breakdownOf(messages: readonly ApiMessage[]): Breakdown {
  const b: Breakdown = {
    toolCallTokens: 0,
    toolResultTokens: 0,
    attachmentTokens: 0,
    assistantMessageTokens: 0,
    userMessageTokens: 0,
    redirectedContextTokens: 0,
    unattributedTokens: 0,
    toolCallsByType: [],
    attachmentsByType: [],
  };
  const toolNames = new Map<string, string>();
  const byTool = new Map<string, { name: string; callTokens: number; resultTokens: number }>();
  const perTool = (name: string): { name: string; callTokens: number; resultTokens: number } => {
    let t = byTool.get(name);
    if (!t) byTool.set(name, (t = { name, callTokens: 0, resultTokens: 0 }));
    return t;
  };
  const attachments = new Map<string, number>();
  for (const m of messages) {
    if (typeof m.content === 'string') {
      b.userMessageTokens += valueTokens(m.content);
      continue;
    }
    for (const block of m.content) {
      switch (block.type) {
        case 'text':
          if (m.role === 'user') b.userMessageTokens += valueTokens(field(block, 'text'));
          else b.assistantMessageTokens += valueTokens(field(block, 'text'));
          break;
        case 'thinking':
          b.assistantMessageTokens += valueTokens(field(block, 'thinking'));
          break;
        case 'tool_use': {
          const rawName = field(block, 'name');
          const name = typeof rawName === 'string' ? rawName : 'unknown';
          const id = field(block, 'id');
          if (typeof id === 'string') toolNames.set(id, name);
          const n = valueTokens(name) + valueTokens(field(block, 'input'));
          b.toolCallTokens += n;
          perTool(name).callTokens += n;
          break;
        }
        case 'tool_result': {
          const n = tokensForChars(toolResultChars(field(block, 'content')));
          b.toolResultTokens += n;
          const id = field(block, 'tool_use_id');
          perTool((typeof id === 'string' ? toolNames.get(id) : undefined) ?? 'unknown').resultTokens += n;
          break;
        }
        case 'image':
        case 'document': {
          const n = IMAGE_TOKENS;
          b.attachmentTokens += n;
          attachments.set(block.type, (attachments.get(block.type) ?? 0) + n);
          break;
        }
        default:
          b.unattributedTokens += valueTokens(block);
      }
    }
  }
  b.toolCallsByType = [...byTool.values()].sort((x, y) => y.callTokens + y.resultTokens - (x.callTokens + x.resultTokens));
  b.attachmentsByType = [...attachments].map(([name, tokens]) => ({ name, tokens }));
  return b;
}

function breakdownTotal(b: Breakdown): number {
  return b.toolCallTokens + b.toolResultTokens + b.attachmentTokens + b.assistantMessageTokens + b.userMessageTokens + b.unattributedTokens;
}

type Category = GetContextUsageResponse['categories'][number];
type Square = GetContextUsageResponse['gridRows'][number][number];

/** Claude Code's /context grid: each square is 1% of the window, filled in category order. */
function grid(categories: readonly Category[], maxTokens: number): Square[][] {
  const squares = GRID_ROWS * GRID_COLUMNS;
  const per = maxTokens / squares;
  const cells: Square[] = [];
  for (const c of categories) {
    if (c.kind === 'deferred' || c.tokens === 0) continue;
    let left = c.tokens;
    const percentage = Math.round((c.tokens / maxTokens) * 100);
    while (left > 0 && cells.length < squares) {
      cells.push({ color: c.color, isFilled: true, categoryName: c.name, tokens: c.tokens, percentage, squareFullness: Math.min(1, left / per) });
      left -= per;
    }
  }
  const rows: Square[][] = [];
  for (let r = 0; r < GRID_ROWS; r++) rows.push(cells.slice(r * GRID_COLUMNS, (r + 1) * GRID_COLUMNS));
  return rows;
}

export function estimateContextUsage(s: ContextSnapshot): GetContextUsageResponse {
  const maxTokens = contextWindowFor(s.model, s.betas ?? []);
  const systemPromptSections = s.system.map((b, i) => ({ name: i === 0 ? 'System prompt' : `System prompt part ${i + 1}`, tokens: valueTokens(b.text) }));
  const isMcp = (name: string): boolean => name.startsWith('mcp__');
  const systemTools = s.tools.filter((t) => !isMcp(t.name)).map((t) => ({ name: t.name, tokens: valueTokens(t) }));
  const mcpTools = s.tools.filter((t) => isMcp(t.name)).map((t) => ({ name: t.name, serverName: t.name.split('__')[1] ?? '', tokens: valueTokens(t), isLoaded: true }));
  const memoryText = new Set((s.memoryFiles ?? []).map((f) => f.text));
  const memoryFiles = (s.memoryFiles ?? []).map((f) => ({ path: f.path, type: f.kind === 'user' ? 'User' : f.kind === 'local' ? 'Local' : 'Project', tokens: valueTokens(f.text) }));
  // The context blocks other than the memory reminder (the environment) count with the system prompt.
  const memoryReminderTokens = (s.context ?? []).filter((c) => [...memoryText].some((t) => c.includes(t))).reduce((a, c) => a + valueTokens(c), 0);
  const otherContextTokens = (s.context ?? []).reduce((a, c) => a + valueTokens(c), 0) - memoryReminderTokens;
  const messageBreakdown = breakdownOf(s.messages);
  const sum = (xs: ReadonlyArray<{ tokens: number }>): number => xs.reduce((a, x) => a + x.tokens, 0);
  const messages = breakdownTotal(messageBreakdown);
  // Claude Code's rows, ids, colours and kinds (2.1.330); an empty row is left out, as it does.
  const used: Category[] = [
    { id: 'system_prompt', name: 'System prompt', tokens: sum(systemPromptSections) + otherContextTokens, color: 'promptBorder', kind: 'used' },
    { id: 'system_tools', name: 'System tools', tokens: sum(systemTools), color: 'inactive', kind: 'used' },
    { id: 'mcp_tools', name: 'MCP tools', tokens: sum(mcpTools), color: 'cyan_FOR_SUBAGENTS_ONLY', kind: 'used' },
    { id: 'memory_files', name: 'Memory files', tokens: memoryReminderTokens, color: 'claude', kind: 'used' },
    { id: 'messages', name: 'Messages', tokens: messages, color: 'purple_FOR_SUBAGENTS_ONLY', kind: 'used' },
  ];
  const categories = used.filter((c) => c.tokens > 0);
  const estimated = sum(categories);
  // The API's count of the last request and its answer, plus an estimate of what came after it.
  const last = s.lastCall;
  const lastIdx = lastAssistantIndex(s.messages);
  // The same total the loop's automatic compaction decides with (model/token-estimate.ts).
  const totalTokens = last && lastIdx >= 0 ? contextTokens({ counted: { tokens: callTokens(last), since: s.messages.slice(lastIdx + 1) } }) : estimated;
  // Claude Code's autocompact buffer: the part of the window past the automatic-compaction threshold.
  const buffer = s.autoCompactThreshold !== undefined ? Math.max(0, maxTokens - s.autoCompactThreshold) : 0;
  if (buffer > 0) categories.push({ id: 'autocompact_buffer', name: 'Autocompact buffer', tokens: buffer, color: 'inactive', kind: 'buffer' });
  categories.push({ id: 'free_space', name: 'Free space', tokens: Math.max(0, maxTokens - totalTokens - buffer), color: 'promptBorder', kind: 'free' });
  return {
    categories,
    totalTokens,
    maxTokens,
    rawMaxTokens: maxTokens,
    percentage: Math.round((totalTokens / maxTokens) * 100),
    gridRows: grid(categories, maxTokens),
    model: s.model,
    memoryFiles,
    mcpTools,
    systemTools,
    systemPromptSections,
    agents: [],
    isAutoCompactEnabled: s.autoCompactThreshold !== undefined,
    messageBreakdown,
    apiUsage: last ?? null,
    agentd_estimate: last && lastIdx >= 0 ? 'api_plus_estimate' : 'estimate',
  };
}
