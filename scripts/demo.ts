// `npm run demo`: a small host program. It drives agentd through the official Claude Agent SDK
// (@anthropic-ai/claude-agent-sdk) on agentd's embedded scripted model, in a temporary workspace, and prints
// what happens: the frames the SDK yields, the permission question it is asked, and the final result.
import { type SDKMessage, type SDKUserMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const agentd = join(root, 'bin', 'agentd');
const out = (s: string): void => void process.stdout.write(`${s}\n`);
const dim = (s: string): string => (process.stdout.isTTY ? `\x1b[2m${s}\x1b[0m` : s);
const bold = (s: string): string => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);

function show(m: SDKMessage): void {
  switch (m.type) {
    case 'system':
      if (m.subtype === 'init') out(dim(`[init] session ${m.session_id} · model ${m.model} · mode ${m.permissionMode} · tools ${m.tools.join(', ')}`));
      else out(dim(`[system/${m.subtype}]`));
      return;
    case 'assistant':
      for (const b of m.message.content) {
        if (b.type === 'text') out(`${bold('assistant:')} ${b.text}`);
        else if (b.type === 'thinking') out(dim(`(thinking) ${b.thinking}`));
        else if (b.type === 'tool_use') out(`${bold('tool call:')} ${b.name} ${JSON.stringify(b.input)} ${dim(b.id)}`);
      }
      return;
    case 'user': {
      const content = m.message.content;
      if (!Array.isArray(content)) return;
      for (const b of content) {
        if (b.type === 'tool_result') {
          const text = typeof b.content === 'string' ? b.content : JSON.stringify(b.content);
          out(`${bold('tool result')} ${dim(b.tool_use_id)}${b.is_error ? ' (error)' : ''}: ${text.split('\n').slice(0, 6).join('\n    ')}`);
        } else if (b.type === 'text') out(dim(`[user] ${b.text}`));
      }
      return;
    }
    case 'tool_progress':
      out(dim(`[progress] ${m.tool_name} ${m.elapsed_time_seconds}s`));
      return;
    case 'result':
      out(
        `${bold('result:')} ${m.subtype} · ${m.num_turns} model calls · ${m.duration_ms} ms · $${m.total_cost_usd.toFixed(6)} (scripted) · tokens in/out ${m.usage.input_tokens}/${m.usage.output_tokens}`,
      );
      return;
    default:
      return;
  }
}

async function main(): Promise<void> {
  const workspace = mkdtempSync(join(tmpdir(), 'agentd-demo-'));
  writeFileSync(join(workspace, 'notes.md'), '# Notes\n\nagentd speaks the stream-json protocol.\nIt runs tools in parallel when that is safe.\n');
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'src', 'hello.ts'), 'export const hello = (name: string) => `Hello, ${name}!`;\n');
  const home = mkdtempSync(join(tmpdir(), 'agentd-demo-home-'));
  out(bold(`agentd demo — workspace ${workspace}`));
  out(dim(`The official SDK spawns ${agentd} (pathToClaudeCodeExecutable) with the scripted model.`));

  const prompts: SDKUserMessage[] = [
    { type: 'user', message: { role: 'user', content: 'What is in this workspace?' }, parent_tool_use_id: null, session_id: '' },
    { type: 'user', message: { role: 'user', content: 'Thanks! Anything else?' }, parent_tool_use_id: null, session_id: '' },
  ];
  let release: (() => void) | undefined;
  async function* input(): AsyncGenerator<SDKUserMessage> {
    for (const p of prompts) {
      out('');
      out(`${bold('user:')} ${typeof p.message.content === 'string' ? p.message.content : ''}`);
      yield p;
      await new Promise<void>((r) => {
        release = r;
      });
    }
  }

  const q = query({
    prompt: input(),
    options: {
      pathToClaudeCodeExecutable: agentd,
      cwd: workspace,
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), AGENTD_MODEL_PROVIDER: 'scripted' },
      canUseTool: async (toolName, toolInput, { toolUseID }) => {
        out(`${bold('permission asked:')} may ${toolName} run ${JSON.stringify(toolInput)}? ${dim(toolUseID)} → allowed by the demo host`);
        return { behavior: 'allow', updatedInput: toolInput };
      },
    },
  });
  let results = 0;
  for await (const m of q) {
    show(m);
    if (m.type === 'result') {
      results++;
      release?.();
    }
  }
  out('');
  out(bold(`done: ${results} turns answered.`));
  rmSync(workspace, { recursive: true, force: true });
  rmSync(home, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
