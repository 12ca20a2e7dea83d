// A cloned repository is hostile (issue 22, items 4 and 5), through the official TS SDK: the file tools never
// write through a link and ask before writing what configures execution; Read deny rules hold for hard links;
// MCP annotations are hints (readOnlyHint never skips the host), file:// resources obey the Read rules, and MCP
// rule wildcards match a tool by its own server. Each test fails on the agentd before this change.
import { type CanUseTool, type Options, type PermissionMode, createSdkMcpServer, tool } from '@anthropic-ai/claude-agent-sdk';
import { existsSync, linkSync, lstatSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { ROOT, tempDir } from '../support/daemon.js';
import { collect, query, scriptedRun, toolResults } from '../support/sdk-run.js';

const FIXTURE = join(ROOT, 'test/fixtures/mcp-stdio-server.mjs');
const STATE = '(file state is current in your context — no need to Read it back)';

type Use = { id: string; name: string; input: Record<string, unknown> };

/** One model round per entry (its calls sent together), then a closing text. */
function rounds(...steps: Use[][]): Scenario {
  return {
    rules: [
      ...steps.map((uses, i) => ({
        when: i === 0 ? { hasToolResults: false } : { toolResultFor: (steps[i - 1]?.at(-1) as Use).id },
        reply: { content: uses.map((u) => ({ type: 'tool_use' as const, ...u })) },
      })),
      { when: { hasToolResults: true }, reply: { content: [{ type: 'text' as const, text: 'done' }] } },
    ],
  };
}

function put(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A host that records what it is asked (tool and path or URI) and answers `answer`. */
function host(answer: 'allow' | 'deny') {
  const asked: string[] = [];
  const canUseTool: CanUseTool = async (name, input) => {
    asked.push(`${name} ${String(input['file_path'] ?? input['uri'] ?? '')}`.trim());
    return answer === 'allow' ? { behavior: 'allow', updatedInput: input } : { behavior: 'deny', message: 'the host said no' };
  };
  return { asked, canUseTool };
}

async function runWith(scenario: Scenario, setup: (cwd: string) => void, options: Partial<Options>) {
  const run = scriptedRun(scenario);
  const cwd = realpathSync(run.cwd);
  setup(cwd);
  const msgs = await collect(query({ prompt: 'go', options: run.options(options) }));
  return { cwd, msgs, run, results: toolResults(msgs) };
}

describe('the file tools never write through a link', () => {
  it('a hard link to .git/config under Edit(./src/**) asks, and an allowed edit leaves .git/config as it was', async () => {
    const h = host('allow');
    const { cwd, results } = await runWith(
      rounds(
        [{ id: 'r1', name: 'Read', input: { file_path: '{{cwd}}/src/cfg' } }],
        [{ id: 'e1', name: 'Edit', input: { file_path: '{{cwd}}/src/cfg', old_string: 'bare = false', new_string: 'fsmonitor = touch pwned' } }],
      ),
      (cwd) => {
        put(join(cwd, '.git/config'), '[core]\n\tbare = false\n');
        mkdirSync(join(cwd, 'src'));
        linkSync(join(cwd, '.git/config'), join(cwd, 'src/cfg'));
      },
      { allowedTools: ['Edit(./src/**)'], canUseTool: h.canUseTool },
    );
    expect({
      asked: h.asked,
      results,
      gitConfig: readFileSync(join(cwd, '.git/config'), 'utf8'),
      cfg: readFileSync(join(cwd, 'src/cfg'), 'utf8'),
      links: lstatSync(join(cwd, '.git/config')).nlink,
    }).toEqual({
      asked: [`Edit ${cwd}/src/cfg`],
      results: [
        ['r1', false, '1\t[core]\n2\t\tbare = false\n3\t'],
        ['e1', false, `The file ${cwd}/src/cfg has been updated successfully ${STATE}`],
      ],
      gitConfig: '[core]\n\tbare = false\n',
      cfg: '[core]\n\tfsmonitor = touch pwned\n',
      links: 1,
    });
  });

  it('a hard link out of the project asks in acceptEdits, and an allowed write leaves the outside file as it was', async () => {
    const out = realpathSync(tempDir('agentd-out-'));
    const h = host('allow');
    const { cwd, results } = await runWith(
      rounds([{ id: 'r1', name: 'Read', input: { file_path: '{{cwd}}/o.txt' } }], [{ id: 'w1', name: 'Write', input: { file_path: '{{cwd}}/o.txt', content: 'new\n' } }]),
      (cwd) => {
        put(join(out, 'o.txt'), 'outside\n');
        linkSync(join(out, 'o.txt'), join(cwd, 'o.txt'));
      },
      { permissionMode: 'acceptEdits', canUseTool: h.canUseTool },
    );
    expect({ asked: h.asked, results, outside: readFileSync(join(out, 'o.txt'), 'utf8'), inside: readFileSync(join(cwd, 'o.txt'), 'utf8') }).toEqual({
      asked: [`Write ${cwd}/o.txt`],
      results: [
        ['r1', false, '1\toutside\n2\t'],
        ['w1', false, `The file ${cwd}/o.txt has been updated successfully ${STATE}`],
      ],
      outside: 'outside\n',
      inside: 'new\n',
    });
  });

  const CONFIGURES = ['.mcp.json', '.gitmodules', '.vscode/settings.json', '.envrc', '.husky/pre-commit', '.npmrc', 'sub/.bashrc'];
  const PLAIN = ['package.json', '.gitattributes', 'Makefile'];
  const writes = (files: string[]): Use[] => files.map((f, i) => ({ id: `w${i}`, name: 'Write', input: { file_path: `{{cwd}}/${f}`, content: 'x\n' } }));

  it('acceptEdits: files that configure execution ask before they are written; plain project files do not', async () => {
    const h = host('deny');
    const { cwd } = await runWith(rounds(writes([...CONFIGURES, ...PLAIN])), () => undefined, { permissionMode: 'acceptEdits', canUseTool: h.canUseTool });
    expect({ asked: h.asked, written: [...CONFIGURES, ...PLAIN].filter((f) => existsSync(join(cwd, f))) }).toEqual({
      asked: CONFIGURES.map((f) => `Write ${cwd}/${f}`),
      written: PLAIN,
    });
  });

  it('dontAsk with allow rules Write and Edit: files that configure execution are denied, plain ones written', async () => {
    const { cwd, msgs } = await runWith(rounds(writes([...CONFIGURES, ...PLAIN])), () => undefined, { permissionMode: 'dontAsk', allowedTools: ['Write', 'Edit'] });
    const result = msgs.at(-1) as { permission_denials?: Array<{ tool_input: { file_path: string } }> };
    expect({
      denied: (result.permission_denials ?? []).map((d) => d.tool_input.file_path),
      written: [...CONFIGURES, ...PLAIN].filter((f) => existsSync(join(cwd, f))),
    }).toEqual({ denied: CONFIGURES.map((f) => `${cwd}/${f}`), written: PLAIN });
  });

  for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
    it(`${mode}: a write of a symbolic link is refused, naming its target; the target keeps its content`, async () => {
      const { cwd, results, msgs } = await runWith(
        rounds([{ id: 'r1', name: 'Read', input: { file_path: '{{cwd}}/link.txt' } }], [{ id: 'w1', name: 'Write', input: { file_path: '{{cwd}}/link.txt', content: 'new\n' } }]),
        (cwd) => {
          put(join(cwd, 'target.txt'), 'old\n');
          symlinkSync('target.txt', join(cwd, 'link.txt'));
        },
        { permissionMode: mode, allowDangerouslySkipPermissions: true },
      );
      const denials = ((msgs.at(-1) as { permission_denials?: Array<{ tool_use_id: string }> }).permission_denials ?? []).map((d) => d.tool_use_id);
      expect({ results, denials, target: readFileSync(join(cwd, 'target.txt'), 'utf8'), link: lstatSync(join(cwd, 'link.txt')).isSymbolicLink() }).toEqual({
        denials: ['w1'],
        results: [
          ['r1', false, '1\told\n2\t'],
          ['w1', true, `Refusing to write ${cwd}/link.txt: it is a symbolic link. Write to the link's target path instead: ${cwd}/target.txt.`],
        ],
        target: 'old\n',
        link: true,
      });
    });
  }

  it('a Read deny rule holds for the hard links of the file it denies: the content never reaches the model', async () => {
    const { cwd, results, run } = await runWith(
      rounds([{ id: 'r1', name: 'Read', input: { file_path: '{{cwd}}/hl.txt' } }]),
      (cwd) => {
        put(join(cwd, 'secret.txt'), 'SECRET-TOKEN\n');
        linkSync(join(cwd, 'secret.txt'), join(cwd, 'hl.txt'));
      },
      { disallowedTools: ['Read(./secret.txt)'] },
    );
    expect(results).toEqual([
      ['r1', true, `Permission to use Read(${cwd}/hl.txt) has been denied: ${cwd}/hl.txt is the same file as ${cwd}/secret.txt (a hard link), which the rule Read(./secret.txt) (cliArg) protects.`],
    ]);
    expect(JSON.stringify(run.requests())).not.toContain('SECRET-TOKEN');
  });
});

describe('MCP annotations are hints', () => {
  function markServer(cwd: string) {
    return createSdkMcpServer({
      name: 'h',
      tools: [
        tool('mark', 'Claims to be read-only, writes a file', { n: z.string() }, async ({ n }) => {
          writeFileSync(join(cwd, `marker-${n}`), 'x');
          return { content: [{ type: 'text', text: 'marked' }] };
        }, { annotations: { readOnlyHint: true } }),
      ],
    });
  }

  for (const mode of ['default', 'acceptEdits', 'plan', 'dontAsk'] as PermissionMode[]) {
    it(`${mode}: a tool marked readOnlyHint ${mode === 'dontAsk' ? 'is denied' : 'asks the host'} (Claude Code does the same)`, async () => {
      const run = scriptedRun(rounds([{ id: 'm1', name: 'mcp__h__mark', input: { n: 'a' } }]));
      const h = host('deny');
      const msgs = await collect(query({ prompt: 'go', options: run.options({ permissionMode: mode, canUseTool: h.canUseTool, mcpServers: { h: markServer(run.cwd) } }) }));
      const [[id, isError]] = toolResults(msgs) as [[string, boolean, string]];
      expect({ asked: h.asked, id, isError, marker: existsSync(join(run.cwd, 'marker-a')) }).toEqual({
        asked: mode === 'dontAsk' ? [] : ['mcp__h__mark'],
        id: 'm1',
        isError: true,
        marker: false,
      });
    });
  }

  it('ReadMcpResourceTool: a file:// resource is judged as a Read of that file; other resources are read unasked', async () => {
    const out = realpathSync(tempDir('agentd-out-'));
    put(join(out, 'outside.txt'), 'OUTSIDE-TOKEN\n');
    const h = host('deny');
    const { cwd, results, run } = await runWith(
      rounds([
        { id: 'o1', name: 'ReadMcpResourceTool', input: { server: 'fx', uri: `file://${out}/outside.txt` } },
        { id: 's1', name: 'ReadMcpResourceTool', input: { server: 'fx', uri: 'file://{{cwd}}/secret.txt' } },
        { id: 'i1', name: 'ReadMcpResourceTool', input: { server: 'fx', uri: 'file://{{cwd}}/in.txt' } },
        { id: 'n1', name: 'ReadMcpResourceTool', input: { server: 'fx', uri: 'fixture://notes' } },
      ]),
      (cwd) => {
        put(join(cwd, 'secret.txt'), 'SECRET-TOKEN\n');
        put(join(cwd, 'in.txt'), 'inside\n');
      },
      { mcpServers: { fx: { command: process.execPath, args: [FIXTURE] } }, disallowedTools: ['Read(./secret.txt)'], canUseTool: h.canUseTool },
    );
    const ORDER = ['o1', 's1', 'i1', 'n1'];
    const contents = (uri: string, text: string) => JSON.stringify({ contents: [{ uri, mimeType: 'text/plain', text }] });
    // Denials come back before the reads that ran: compare in the order of the calls.
    expect({ asked: h.asked, results: [...results].sort((a, b) => ORDER.indexOf(a[0]) - ORDER.indexOf(b[0])) }).toEqual({
      asked: [`ReadMcpResourceTool file://${out}/outside.txt`],
      results: [
        ['o1', true, 'the host said no'],
        ['s1', true, `Permission to use ReadMcpResourceTool(${cwd}/secret.txt) has been denied by the rule Read(./secret.txt) (cliArg).`],
        ['i1', false, contents(`file://${cwd}/in.txt`, 'inside\n')],
        ['n1', false, contents('fixture://notes', 'contents of fixture://notes')],
      ],
    });
    expect(JSON.stringify(run.requests())).not.toMatch(/SECRET-TOKEN|OUTSIDE-TOKEN/);
  });

  function serverNamed(name: string, cwd: string) {
    return createSdkMcpServer({
      name,
      tools: [tool('t', 'Writes a marker', {}, async () => {
        writeFileSync(join(cwd, 'marker-t'), 'x');
        return { content: [{ type: 'text', text: 'ran' }] };
      })],
    });
  }

  for (const [rule, allowed] of [['mcp__h__*', false], ['mcp__h', false], ['mcp__h__x__*', true], ['mcp__h__x__t', true]] as const) {
    it(`allow rule ${rule} ${allowed ? 'allows' : 'does not allow'} the tool t of a server named h__x (as in Claude Code)`, async () => {
      const run = scriptedRun(rounds([{ id: 't1', name: 'mcp__h__x__t', input: {} }]));
      const h = host('deny');
      const msgs = await collect(query({ prompt: 'go', options: run.options({ allowedTools: [rule], canUseTool: h.canUseTool, mcpServers: { h__x: serverNamed('h__x', run.cwd) } }) }));
      expect({ asked: h.asked, results: toolResults(msgs), ran: existsSync(join(run.cwd, 'marker-t')) }).toEqual(
        allowed ? { asked: [], results: [['t1', false, 'ran']], ran: true } : { asked: ['mcp__h__x__t'], results: [['t1', true, 'the host said no']], ran: false },
      );
    });
  }
});
