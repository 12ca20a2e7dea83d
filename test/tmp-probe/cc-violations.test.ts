import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { it } from 'vitest';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { startLoopbackServer } from '../support/loopback-server.js';
import { baseEnv, tempDir } from '../support/daemon.js';
import { collect } from '../support/sdk-run.js';

it('probe', async () => {
  const http = createServer((req, res) => res.end(`hello from ${req.headers.host}`));
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (http.address() as AddressInfo).port;
  const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command } });
  const lb = await startLoopbackServer({
    rules: [
      { when: { hasToolResults: false }, reply: { content: [bash('denied', `curl --noproxy '' -sS http://127.0.0.1:${port}/`), bash('denied2', `curl --noproxy '' -sS -o /dev/null -w '%{http_code}' http://127.0.0.1:${port}/x`)] } },
      { when: { hasToolResults: true }, reply: { content: [{ type: 'text', text: 'done' }] } },
    ],
  } as never);
  const cwd = tempDir('cc-probe-');
  const env = baseEnv({ ANTHROPIC_BASE_URL: lb.url, ANTHROPIC_API_KEY: 'sk-test' });
  const msgs = await collect(query({ prompt: 'go', options: { pathToClaudeCodeExecutable: '/work/h-sandbox3/node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude', cwd, env, sandbox: { enabled: true, autoAllowBashIfSandboxed: true, network: { allowedDomains: ['localhost'] } }, permissionMode: 'default' } }));
  console.log(JSON.stringify(lb.requests.map((r) => r.body.messages?.at(-1)).slice(1), null, 1));
  console.log(JSON.stringify(msgs.filter((m) => m.type === 'user'), null, 1));
  await lb.close();
  http.close();
}, 120_000);
