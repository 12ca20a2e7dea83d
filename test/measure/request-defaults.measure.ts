// MEASUREMENT (not part of npm test): the request defaults of Claude Code 2.1.330 (thinking, effort, betas,
// metadata…) and how its flags, settings and the SDK's options change them. Drives the reference binary through
// the official TS SDK (or directly, for -p) against the loopback model.
//   npx vitest run -c test/measure/vitest.measure.config.ts test/measure/request-defaults.measure.ts
// ONLY=<name prefix>[,<prefix>…] runs some variants; OUT=<dir> keeps every captured request (default: a temp dir);
// BIN=agentd runs the same variants against bin/agentd (compare the two OUT dirs); FIXTURE=1 rewrites
// test/fixtures/claude-code-first-request.json from the default run.
//
// What 2.1.330 sent (API key, first party, SDK stream-json unless said; src/model/model-traits.ts and
// request-defaults.ts implement it):
//  - Default options: POST /v1/messages?beta=true, model claude-opus-5-5, max_tokens 128000, stream true,
//    thinking {type: adaptive, display: updates}, context_management {edits: [{type: clear_thinking_20251015,
//    keep: all}]}, output_config {effort: medium}, metadata.user_id = JSON string {device_id: 64 hex (userID of its
//    .claude.json), account_uuid: "", session_id}; no temperature. Headers: anthropic-version 2023-06-01, x-app cli,
//    x-claude-code-session-id, user-agent claude-cli/2.1.330 (external, sdk-ts, agent-sdk/0.3.330), anthropic-beta
//    claude-code-20250219, interleaved-thinking-2025-05-14, context-management-2025-06-27,
//    per-turn-control-2026-07-01, mid-conversation-tool-changes-2026-07-01, thinking-token-count-2026-05-13,
//    advanced-tool-use-2025-11-20, effort-2025-11-24, thinking-display-updates-2026-08-18. system: a billing
//    header block, then the prompt with cache_control; tools without cache_control; the environment as a
//    role "system" message after the prompt, the last message's block carrying cache_control.
//  - Per family (its built-in catalog): max_tokens = the catalog default (opus-5-5/haiku-5-5/sonnet-5-5/
//    fable-5-2 128000; opus-4-6/4-7/4-8, opus-5, sonnet-5, mythos-5 64000; sonnet-4-5/4-6, haiku-4-5, opus-4-5,
//    3-7, unknown 32000; 3-5-haiku 8192). Adaptive thinking for all but claude-3-* (none), opus-4-0/4-1/4-5,
//    sonnet-4-0/4-5, haiku-4-5 (budget: max_tokens - 1 = 31999). Effort on all but claude-3-*, opus-4-0/4-1,
//    sonnet-4-0/4-5, haiku-4-5; default medium (opus-5-5, haiku-5-5, fable-5-2), xhigh (opus-4-7), else high
//    (unknown models too); xhigh/max on a model without them run as high (opus-4-5, opus-4-6 xhigh).
//    per-turn-control only for per-turn-effort models (opus-5-5, haiku-5-5, sonnet-5-5, fable-5-1/5-2);
//    mid-conversation-tool-changes for those, opus-4-8, opus-5, fable, mythos and any unknown id; Claude 3 gets
//    claude-code-20250219 alone; a haiku id lists claude-code after context-management. Family by substring:
//    dated, Bedrock (us.anthropic.…-v1:0), Vertex (@date), upper-case and [1m] (+context-1m beta) spellings.
//  - Thinking off (--thinking disabled, --max-thinking-tokens 0, MAX_THINKING_TOKENS=0, alwaysThinkingEnabled
//    false, SDK thinking {disabled} / maxThinkingTokens 0): thinking {type: disabled} (left out for unknown and
//    Claude 3 ids), no context_management, no display-updates beta, temperature 1 for models before opus-4-7;
//    a model that rejects disabled thinking (opus-5-5, haiku/sonnet-5-5, fable, mythos-5-1/5-2) stays adaptive.
//    CLAUDE_CODE_DISABLE_THINKING leaves the field out on every model (temperature 1 before opus-4-7).
//  - Budgets: --max-thinking-tokens / MAX_THINKING_TOKENS / SDK maxThinkingTokens or thinking {enabled,
//    budgetTokens} set budget_tokens (capped at max_tokens - 1) on budget models; adaptive models stay adaptive.
//    Precedence: MAX_THINKING_TOKENS > --thinking disabled > --max-thinking-tokens > --thinking > settings.
//    --thinking enabled|adaptive are the default; a bad --thinking or --thinking-display exits 1 naming it.
//  - Display: stream-json and json --verbose send `updates` (+ its beta); -p text and json send `omitted`;
//    --thinking-display summarized|highlights as given (no updates beta), `omitted` as the default;
//    showThinkingSummaries: no display field. set_max_thinking_tokens' thinking_display likewise.
//  - Effort: CLAUDE_CODE_EFFORT_LEVEL (auto/unset: no output_config) > --effort > settings (flag > local >
//    project > user; modelSettings.<family>.effortLevel over the file's top level; the user file's top-level
//    effortLevel is not applied to a medium-default model) > model default; maxEffortLevel caps (lowest wins, a
//    modelSettings "max" exempts). --effort is case-insensitive, `med`, `ultracode` = xhigh; a bad value is a
//    warning and the default (agentd refuses it instead). CLAUDE_CODE_SUBAGENT_EFFORT sets subagents' effort.
//  - CLAUDE_CODE_MAX_OUTPUT_TOKENS sets max_tokens, capped at the catalog's upper bound (unknown: 128000).
//  - set_max_thinking_tokens N: budget N on budget models (adaptive stays adaptive), 0: off, null: back to
//    the start-up choice. Subagents' requests carry the session's thinking, display and effort.
//  - Thinking blocks go back in later requests unchanged (signature kept).
//  - OAuth: oauth-2025-04-20 right after claude-code-20250219, extended-cache-ttl-2025-04-11 last. --betas
//    other than the allowed ones are dropped (agentd sends them on, its documented --betas).
//  - Bedrock/Vertex: no context_management; no display and no thinking betas for models before opus-4-7;
//    effort only for catalogued effort models; budget thinking for unknown ids; Bedrock's body anthropic_beta
//    is its own list (interleaved-thinking, tool-search-tool, +thinking-token-count/display-updates);
//    Vertex adds web-search and tool-search-tool; Foundry is first-party-like plus web-search.
import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { type Options, type Query, type SDKUserMessage, query } from '@anthropic-ai/claude-agent-sdk';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { type RecordedRequest, startLoopbackServer } from '../support/loopback-server.js';
import { ROOT, tempDir } from '../support/daemon.js';

// BIN=agentd drives bin/agentd instead (after `node scripts/build.mjs`), to compare the two.
const CLAUDE = process.env['BIN'] === 'agentd' ? join(ROOT, 'bin/agentd') : join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');
const OUT = process.env['OUT'] ?? tempDir('cc-request-defaults-');
mkdirSync(OUT, { recursive: true });

interface Variant {
  name: string;
  options?: Partial<Options>;
  /** ~/.claude/settings.json */
  user?: object;
  /** <cwd>/.claude/settings.json */
  project?: object;
  env?: Record<string, string>;
  /** Prompts sent one turn at a time; `between` runs after each turn but the last. */
  prompts?: string[];
  between?: Array<(q: Query) => Promise<void>>;
  /** Run the binary itself with these arguments (no SDK): `-p` mode. */
  argv?: string[];
  scenario?: Scenario;
  /** The loopback's wire format (Bedrock answers in AWS event-stream frames). */
  wire?: 'anthropic' | 'bedrock';
  /** Point the provider's base URL at the loopback: env built from the server URL. */
  provider?: (url: string) => Record<string, string>;
}

const THINKING_REPLY: Scenario = {
  rules: [{ reply: { content: [{ type: 'thinking', thinking: 'Let me think.', signature: 'sig-measured-1' }, { type: 'text', text: 'answer' }] } }],
};

/** The model delegates to a subagent, which answers; then the main loop ends. */
const SUBAGENT: Scenario = {
  rules: [
    { when: { requestIndex: 0 }, reply: { content: [{ type: 'tool_use', id: 'toolu_a1', name: 'Agent', input: { description: 'sub', prompt: 'do the sub-task', subagent_type: 'helper' } }], stopReason: 'tool_use' } },
    { when: { lastUserText: 'do the sub-task' }, reply: { content: [{ type: 'text', text: 'sub done' }] } },
  ],
  fallback: { content: [{ type: 'text', text: 'done' }] },
};

const models = [
  'claude-opus-5-5', 'claude-opus-4-7', 'claude-opus-4-6', 'claude-opus-4-5', 'claude-opus-4-1', 'claude-sonnet-5', 'claude-sonnet-4-6',
  'claude-sonnet-4-5', 'claude-sonnet-4-5-20250929', 'claude-haiku-4-5', 'claude-haiku-5-5', 'claude-3-7-sonnet-20250219', 'claude-fable-5-2',
  'claude-mythos-5', 'sonnet', 'opus', 'haiku', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'anthropic.claude-opus-4-6-v1', 'my-custom-model',
];

const variants: Variant[] = [
  { name: 'default', scenario: THINKING_REPLY, prompts: ['first', 'second'] },
  ...models.map((m) => ({ name: `model ${m}`, options: { model: m } })),
  ...(['low', 'medium', 'high', 'xhigh', 'max'] as const).map((e) => ({ name: `effort ${e}`, options: { effort: e } })),
  ...(['low', 'max'] as const).flatMap((e) => ['claude-sonnet-4-5', 'claude-haiku-4-5', 'claude-opus-4-5', 'claude-opus-4-6', 'claude-sonnet-4-6'].map((m) => ({ name: `effort ${e} ${m}`, options: { effort: e, model: m } }))),
  { name: 'effort bad', options: { effort: 'extreme' as never } },
  { name: 'effort bad -p', argv: ['-p', 'hi', '--effort', 'extreme'] },
  ...['adaptive', 'enabled', 'disabled'].flatMap((t) => ['', 'claude-sonnet-4-5', 'claude-haiku-4-5'].map((m) => ({ name: `--thinking ${t} ${m}`, options: { extraArgs: { thinking: t }, ...(m ? { model: m } : {}) } }))),
  { name: '--thinking bad', options: { extraArgs: { thinking: 'sometimes' } } },
  ...['', 'claude-sonnet-4-5', 'claude-opus-4-6'].flatMap((m) => [0, 1024, 5000, 100000].map((n) => ({ name: `--max-thinking-tokens ${n} ${m}`, options: { extraArgs: { 'max-thinking-tokens': String(n) }, ...(m ? { model: m } : {}) } }))),
  ...['summarized', 'omitted'].flatMap((d) => ['', 'claude-sonnet-4-5'].map((m) => ({ name: `--thinking-display ${d} ${m}`, options: { extraArgs: { 'thinking-display': d }, ...(m ? { model: m } : {}) } }))),
  { name: '--thinking-display bad', options: { extraArgs: { 'thinking-display': 'loud' } } },
  ...['low', 'high', 'max', 'bogus'].map((e) => ({ name: `settings effortLevel ${e}`, user: { effortLevel: e } })),
  { name: 'settings effortLevel low + --effort high', user: { effortLevel: 'low' }, options: { effort: 'high' as const } },
  ...[true, false].flatMap((v) => ['', 'claude-sonnet-4-5'].map((m) => ({ name: `settings alwaysThinkingEnabled ${v} ${m}`, user: { alwaysThinkingEnabled: v }, ...(m ? { options: { model: m } } : {}) }))),
  { name: 'settings showThinkingSummaries true', user: { showThinkingSummaries: true } },
  { name: 'sdk thinking adaptive', options: { thinking: { type: 'adaptive' } } },
  { name: 'sdk thinking adaptive summarized', options: { thinking: { type: 'adaptive', display: 'summarized' } } },
  { name: 'sdk thinking enabled 8000', options: { thinking: { type: 'enabled', budgetTokens: 8000 } } },
  { name: 'sdk thinking enabled 8000 sonnet-4-5', options: { thinking: { type: 'enabled', budgetTokens: 8000 }, model: 'claude-sonnet-4-5' } },
  { name: 'sdk thinking enabled (no budget)', options: { thinking: { type: 'enabled' } } },
  { name: 'sdk thinking disabled', options: { thinking: { type: 'disabled' } } },
  { name: 'sdk maxThinkingTokens 3000', options: { maxThinkingTokens: 3000 } },
  { name: 'sdk maxThinkingTokens 0', options: { maxThinkingTokens: 0 } },
  { name: 'sdk settings effortLevel high', options: { settings: { effortLevel: 'high' } as never } },
  { name: 'env MAX_THINKING_TOKENS 4000', env: { MAX_THINKING_TOKENS: '4000' } },
  { name: 'env MAX_THINKING_TOKENS 4000 sonnet-4-5', env: { MAX_THINKING_TOKENS: '4000' }, options: { model: 'claude-sonnet-4-5' } },
  { name: 'env CLAUDE_CODE_EFFORT_LEVEL low', env: { CLAUDE_CODE_EFFORT_LEVEL: 'low' } },
  { name: 'env CLAUDE_CODE_DISABLE_THINKING', env: { CLAUDE_CODE_DISABLE_THINKING: '1' } },
  { name: 'sonnet-4-5 two turns (round trip)', options: { model: 'claude-sonnet-4-5' }, scenario: THINKING_REPLY, prompts: ['first', 'second'] },
  ...[5000, 0, null].map((n) => ({ name: `setMaxThinkingTokens ${n}`, prompts: ['first', 'second'], between: [async (q: Query) => q.setMaxThinkingTokens(n)] })),
  ...[5000, 0, null].map((n) => ({ name: `setMaxThinkingTokens ${n} sonnet-4-5`, options: { model: 'claude-sonnet-4-5' }, prompts: ['first', 'second'], between: [async (q: Query) => q.setMaxThinkingTokens(n)] })),
  { name: 'setMaxThinkingTokens 5000 then null, --max-thinking-tokens 2000 sonnet-4-5', options: { model: 'claude-sonnet-4-5', extraArgs: { 'max-thinking-tokens': '2000' } }, prompts: ['first', 'second', 'third'], between: [async (q) => q.setMaxThinkingTokens(5000), async (q) => q.setMaxThinkingTokens(null)] },
  { name: 'setMaxThinkingTokens 0 then null, --thinking disabled', options: { extraArgs: { thinking: 'disabled' } }, prompts: ['first', 'second', 'third'], between: [async (q) => q.setMaxThinkingTokens(5000), async (q) => q.setMaxThinkingTokens(null)] },
  ...['claude-opus-5-5-20261101', 'claude-sonnet-4-20250514', 'claude-opus-4-6[1m]', 'claude-opus-4-5@20251101', 'claude-sonnet-5-5', 'claude-opus-4-8', 'claude-opus-5', 'claude-fable-5', 'claude-mythos-5-2', 'claude-opus-4-0', 'CLAUDE-OPUS-4-6', 'claude-haiku-4-5-20251001', 'claude-3-5-haiku-20241022'].map((m) => ({ name: `model2 ${m}`, options: { model: m } })),
  ...(['xhigh', 'max'] as const).flatMap((e) => ['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-opus-4-5', 'my-custom-model', 'claude-mythos-5'].map((m) => ({ name: `effort2 ${e} ${m}`, options: { effort: e, model: m } }))),
  ...['claude-opus-4-6', 'claude-sonnet-4-6', 'claude-opus-5-5'].map((m) => ({ name: `settings2 effortLevel low ${m}`, user: { effortLevel: 'low' }, options: { model: m } })),
  { name: 'settings2 modelSettings effortLevel low', user: { modelSettings: { 'claude-opus-5-5': { effortLevel: 'low' } } } },
  { name: 'settings2 project effortLevel low', project: { effortLevel: 'low' } },
  { name: 'settings2 project alwaysThinkingEnabled false sonnet-4-5', project: { alwaysThinkingEnabled: false }, options: { model: 'claude-sonnet-4-5' } },
  { name: 'settings2 --settings effortLevel low', options: { extraArgs: { settings: JSON.stringify({ effortLevel: 'low' }) } } },
  { name: 'settings2 --settings alwaysThinkingEnabled false sonnet-4-5', options: { model: 'claude-sonnet-4-5', extraArgs: { settings: JSON.stringify({ alwaysThinkingEnabled: false }) } } },
  { name: 'settings2 maxEffortLevel medium + --effort max', user: { maxEffortLevel: 'medium' }, options: { effort: 'max' } },
  { name: 'settings2 alwaysThinkingEnabled false + --thinking adaptive sonnet-4-5', user: { alwaysThinkingEnabled: false }, options: { model: 'claude-sonnet-4-5', extraArgs: { thinking: 'adaptive' } } },
  { name: 'settings2 alwaysThinkingEnabled false + --max-thinking-tokens 3000 sonnet-4-5', user: { alwaysThinkingEnabled: false }, options: { model: 'claude-sonnet-4-5', extraArgs: { 'max-thinking-tokens': '3000' } } },
  { name: 'settings2 alwaysThinkingEnabled false my-custom-model', user: { alwaysThinkingEnabled: false }, options: { model: 'my-custom-model' } },
  { name: 'env2 CLAUDE_CODE_DISABLE_THINKING sonnet-4-5', env: { CLAUDE_CODE_DISABLE_THINKING: '1' }, options: { model: 'claude-sonnet-4-5' } },
  { name: 'env2 CLAUDE_CODE_MAX_OUTPUT_TOKENS 5000 sonnet-4-5', env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '5000' }, options: { model: 'claude-sonnet-4-5' } },
  { name: 'env2 CLAUDE_CODE_MAX_OUTPUT_TOKENS 5000', env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '5000' } },
  { name: 'env2 CLAUDE_CODE_MAX_OUTPUT_TOKENS 500000', env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '500000' } },
  { name: 'env2 oauth token', env: { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-measure-000000', ANTHROPIC_API_KEY: '' } },
  { name: 'env2 --betas context-1m + custom', options: { betas: ['context-1m-2025-08-07', 'files-api-2025-04-14'] as never } },
  { name: 'env2 thinking disabled my-custom-model', options: { model: 'my-custom-model', thinking: { type: 'disabled' } } },
  { name: 'env2 thinking disabled claude-opus-4-7', options: { model: 'claude-opus-4-7', thinking: { type: 'disabled' } } },
  { name: 'env2 thinking disabled claude-3-7', options: { model: 'claude-3-7-sonnet-20250219', thinking: { type: 'disabled' } } },
  { name: 'env2 thinking adaptive claude-3-7', options: { model: 'claude-3-7-sonnet-20250219', thinking: { type: 'adaptive' } } },
  { name: 'env2 maxThinkingTokens 3000 claude-3-7', options: { model: 'claude-3-7-sonnet-20250219', maxThinkingTokens: 3000 } },
  { name: 'env2 --thinking-display omitted sonnet-4-5 thinking disabled', options: { model: 'claude-sonnet-4-5', thinking: { type: 'disabled' }, extraArgs: { 'thinking-display': 'summarized' } } },
  { name: 'env2 set_max_thinking_tokens display summarized', prompts: ['first', 'second'], between: [async (q) => q.setMaxThinkingTokens(null, 'summarized')] },
  ...['claude-opus-4-7', 'claude-sonnet-5', 'my-custom-model', 'claude-haiku-5-5', 'claude-fable-5-2'].flatMap((m) => [
    { name: `settings3 user effortLevel low ${m}`, user: { effortLevel: 'low' }, options: { model: m } },
  ]),
  ...['claude-sonnet-4-6', 'claude-haiku-4-5', 'claude-sonnet-5', 'claude-opus-4-8', 'claude-opus-5', 'claude-opus-4-5', 'claude-sonnet-4-0'].map((m) => ({ name: `thinking3 disabled ${m}`, options: { model: m, thinking: { type: 'disabled' as const } } })),
  ...[0, 5000].map((n) => ({ name: `thinking3 setMaxThinkingTokens ${n} claude-opus-4-6`, options: { model: 'claude-opus-4-6' }, prompts: ['first', 'second'], between: [async (q: Query) => q.setMaxThinkingTokens(n)] })),
  { name: 'thinking3 --thinking-display highlights', options: { extraArgs: { 'thinking-display': 'highlights' } } },
  { name: 'thinking3 --thinking-display omitted -p json', argv: ['-p', 'hi', '--output-format', 'json', '--thinking-display', 'summarized'] },
  { name: 'thinking3 -p json --verbose', argv: ['-p', 'hi', '--output-format', 'json', '--verbose'] },
  { name: 'thinking3 --effort LOW', options: { extraArgs: { effort: 'LOW' } } },
  { name: 'thinking3 --effort med', options: { extraArgs: { effort: 'med' } } },
  { name: 'thinking3 --effort 50', options: { extraArgs: { effort: '50' } } },
  { name: 'thinking3 --effort ultracode', options: { extraArgs: { effort: 'ultracode' } } },
  ...['', 'claude-sonnet-4-5', 'claude-opus-4-5', 'my-custom-model'].flatMap((m) => [
    { name: `provider bedrock ${m}`, wire: 'bedrock' as const, options: m ? { model: m } : {}, provider: (url: string) => ({ CLAUDE_CODE_USE_BEDROCK: '1', CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1', AWS_REGION: 'us-west-2', ANTHROPIC_BEDROCK_BASE_URL: url }) },
    { name: `provider vertex ${m}`, options: m ? { model: m } : {}, provider: (url: string) => ({ CLAUDE_CODE_USE_VERTEX: '1', CLAUDE_CODE_SKIP_VERTEX_AUTH: '1', CLOUD_ML_REGION: 'us-east5', ANTHROPIC_VERTEX_PROJECT_ID: 'p', ANTHROPIC_VERTEX_BASE_URL: `${url}/v1` }) },
    { name: `provider foundry ${m}`, options: m ? { model: m } : {}, provider: (url: string) => ({ CLAUDE_CODE_USE_FOUNDRY: '1', CLAUDE_CODE_SKIP_FOUNDRY_AUTH: '1', ANTHROPIC_FOUNDRY_BASE_URL: `${url}/anthropic` }) },
  ]),
  ...['claude-fable-5-1', 'claude-mythos-5-1', 'claude-opus-4-6'].map((m) => ({ name: `settings4 user effortLevel low ${m}`, user: { effortLevel: 'low' }, options: { model: m } })),
  { name: 'settings4 project effortLevel low + --effort high claude-opus-4-6', project: { effortLevel: 'low' }, options: { model: 'claude-opus-4-6', effort: 'high' as const } },
  { name: 'settings4 env effort low + --effort high', env: { CLAUDE_CODE_EFFORT_LEVEL: 'low' }, options: { effort: 'high' as const } },
  { name: 'settings4 env effort auto', env: { CLAUDE_CODE_EFFORT_LEVEL: 'auto' } },
  { name: 'settings4 user effortLevel low + modelSettings high claude-opus-4-6', user: { effortLevel: 'low', modelSettings: { 'claude-opus-4-6': { effortLevel: 'high' } } }, options: { model: 'claude-opus-4-6' } },
  { name: 'settings4 user modelSettings low for claude-opus-4-6 on claude-opus-4-6-20260101', user: { modelSettings: { 'claude-opus-4-6': { effortLevel: 'low' } } }, options: { model: 'anthropic.claude-opus-4-6-v1' } },
  { name: 'settings4 user low project high claude-opus-4-6', user: { effortLevel: 'low' }, project: { effortLevel: 'high' }, options: { model: 'claude-opus-4-6' } },
  { name: 'settings4 project maxEffortLevel low', project: { maxEffortLevel: 'low' } },
  { name: 'settings4 user maxEffortLevel low, modelSettings max exempt', user: { maxEffortLevel: 'low', modelSettings: { 'claude-opus-5-5': { maxEffortLevel: 'max' } } }, options: { effort: 'max' as const } },
  { name: 'settings4 --thinking disabled + --max-thinking-tokens 3000 sonnet-4-5', options: { model: 'claude-sonnet-4-5', extraArgs: { thinking: 'disabled', 'max-thinking-tokens': '3000' } } },
  { name: 'settings4 MAX_THINKING_TOKENS 0 sonnet-4-5', env: { MAX_THINKING_TOKENS: '0' }, options: { model: 'claude-sonnet-4-5' } },
  { name: 'settings4 MAX_THINKING_TOKENS 4000 + --max-thinking-tokens 2000 sonnet-4-5', env: { MAX_THINKING_TOKENS: '4000' }, options: { model: 'claude-sonnet-4-5', extraArgs: { 'max-thinking-tokens': '2000' } } },
  { name: 'settings4 showThinkingSummaries + --thinking-display omitted', user: { showThinkingSummaries: true }, options: { extraArgs: { 'thinking-display': 'omitted' } } },
  { name: 'settings4 oauth sonnet-4-5', env: { CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-measure-000000', ANTHROPIC_API_KEY: '' }, options: { model: 'claude-sonnet-4-5' } },
  ...[undefined, 'claude-sonnet-4-5'].flatMap((m) => [{}, { forwardSubagentText: true }, { effort: 'low' as const }, { extraArgs: { 'thinking-display': 'summarized' } }].map((o) => ({
    name: `subagent ${m ?? ''} ${JSON.stringify(o)}`,
    // A defined agent: agentd offers the Agent tool only then.
    options: { ...(m ? { model: m } : {}), ...o, agents: { helper: { description: 'helps', prompt: 'You help.' } } },
    scenario: SUBAGENT,
  }))),
  { name: 'subagent env CLAUDE_CODE_SUBAGENT_EFFORT low', env: { CLAUDE_CODE_SUBAGENT_EFFORT: 'low' }, options: { agents: { helper: { description: 'helps', prompt: 'You help.' } } }, scenario: SUBAGENT },
  { name: 'maxout custom 64000', env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '64000' }, options: { model: 'my-custom-model' } },
  { name: 'maxout custom 200000', env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '200000' }, options: { model: 'my-custom-model' } },
  { name: 'maxout sonnet-4-5 200000', env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '200000' }, options: { model: 'claude-sonnet-4-5' } },
  { name: '-p text', argv: ['-p', 'hi'] },
  { name: '-p json', argv: ['-p', 'hi', '--output-format', 'json'] },
  { name: '-p stream-json', argv: ['-p', 'hi', '--output-format', 'stream-json', '--verbose'] },
  { name: '-p text --effort low --model claude-sonnet-4-5', argv: ['-p', 'hi', '--effort', 'low', '--model', 'claude-sonnet-4-5'] },
];

/** The request fields this measurement is about (messages, system and tools are summarised). */
function summary(r: RecordedRequest): Record<string, unknown> {
  const { messages, system, tools, ...rest } = r.body as unknown as Record<string, unknown>;
  return {
    path: r.path,
    ...rest,
    messages: (messages as Array<{ role: string; content: unknown }>).map((m) => ({
      role: m.role,
      content: Array.isArray(m.content) ? m.content.map((b: Record<string, unknown>) => (b['type'] === 'text' ? { type: 'text', chars: String(b['text']).length, ...(b['cache_control'] ? { cache_control: b['cache_control'] } : {}) } : b)) : m.content,
    })),
    system: (system as Array<Record<string, unknown>> | undefined)?.map((b) => ({ ...b, text: String(b['text']).slice(0, 60) })),
    tools: (tools as Array<Record<string, unknown>> | undefined)?.map((t) => Object.keys(t).filter((k) => k !== 'description' && k !== 'input_schema').map((k) => (k === 'name' ? t[k] : `${k}=${JSON.stringify(t[k])}`)).join(' ')),
    beta: r.headers['anthropic-beta'],
  };
}

function envFor(home: string, url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1', ...extra,
  };
}

const only = process.env['ONLY']?.split(',');
for (const v of variants.filter((x) => !only || only.some((o) => x.name.startsWith(o)))) {
  it(v.name, async () => {
    const cwd = realpathSync(tempDir('cc-rd-'));
    const home = tempDir('cc-home-');
    mkdirSync(join(home, '.claude'), { recursive: true });
    if (v.user) writeFileSync(join(home, '.claude/settings.json'), JSON.stringify(v.user));
    if (v.project) {
      mkdirSync(join(cwd, '.claude'), { recursive: true });
      writeFileSync(join(cwd, '.claude/settings.json'), JSON.stringify(v.project));
    }
    const server = await startLoopbackServer(v.scenario ?? { rules: [{ reply: { content: [{ type: 'text', text: 'answer' }] } }] }, {}, { wire: v.wire ?? 'anthropic' });
    const env = envFor(home, server.url, { ...v.env, ...v.provider?.(server.url) });
    const stderr: string[] = [];
    const outcome: unknown[] = [];
    try {
      if (v.argv) {
        // Asynchronously: the loopback server answers from this process's event loop.
        const child = spawn(CLAUDE, v.argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        child.stdout.on('data', (c: Buffer) => void (stdout += c.toString()));
        child.stderr.on('data', (c: Buffer) => void stderr.push(c.toString()));
        const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
        outcome.push({ status, stdout: stdout.slice(0, 600) });
      } else {
        const prompts = v.prompts ?? ['hi'];
        let release: () => void = () => {};
        async function* input(): AsyncGenerator<SDKUserMessage> {
          for (const p of prompts) {
            yield { type: 'user', message: { role: 'user', content: p }, parent_tool_use_id: null, session_id: '' };
            await new Promise<void>((r) => (release = r));
          }
        }
        const q = query({ prompt: input(), options: { pathToClaudeCodeExecutable: CLAUDE, cwd, env, stderr: (d) => stderr.push(d), ...v.options } });
        let results = 0;
        try {
          for await (const m of q) {
            if (m.type === 'system' && m.subtype === 'init') outcome.push({ init: { model: m.model } });
            if (m.type === 'assistant') outcome.push({ assistant: m.message.content.map((b) => b.type) });
            if (m.type === 'result') {
              outcome.push({ result: m.subtype, text: m.subtype === 'success' ? m.result : m.errors });
              const hook = v.between?.[results];
              if (hook) await hook(q).then(() => outcome.push({ between: 'ok' }), (e: unknown) => outcome.push({ between: String(e) }));
              results++;
              release();
              if (results === prompts.length) break;
            }
          }
        } catch (e) {
          outcome.push({ threw: String(e).slice(0, 600) });
        }
      }
    } finally {
      await server.close();
    }
    // FIXTURE=1: the first request of the default run becomes test/fixtures/claude-code-first-request.json (what
    // test/e2e/sdk-request-defaults.test.ts compares agentd's with); the key and transport headers are left out.
    const first = server.requests[0];
    if (v.name === 'default' && process.env['FIXTURE'] === '1' && first && process.env['BIN'] !== 'agentd') {
      const drop = new Set(['host', 'content-length', 'x-api-key', 'connection', 'accept-encoding']);
      const headers = Object.fromEntries(Object.entries(first.headers).filter(([k]) => !drop.has(k)));
      writeFileSync(join(ROOT, 'test/fixtures/claude-code-first-request.json'), `${JSON.stringify({ capturedWith: 'Claude Code 2.1.330 through @anthropic-ai/claude-agent-sdk query() with default options (test/measure/request-defaults.measure.ts)', cwd, path: first.path, headers, body: first.body }, null, 1)}\n`);
    }
    const file = join(OUT, `${v.name.replace(/[^a-zA-Z0-9.-]+/g, '_')}.json`);
    writeFileSync(file, JSON.stringify({ variant: v.name, outcome, stderr: stderr.join('').slice(-2000), requests: server.requests.map((r) => ({ path: r.path, headers: r.headers, body: r.body })) }, null, 1));
    console.log(`### ${v.name}\n${JSON.stringify({ outcome, requests: server.requests.map(summary).map((s) => ({ ...s, messages: undefined, system: undefined, tools: undefined })) })}\n  stderr: ${stderr.join('').slice(-300)}`);
  }, 120_000);
}
