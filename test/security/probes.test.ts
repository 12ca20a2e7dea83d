// Security probes against the permission layer, built as the daemon builds it: the real shell analyser, the real
// built-in tools (their permissionSubject / isReadOnly), rules from rulesFrom(), and a host prompter that records
// that it was asked and refuses. Every probe in probes.ts names the outcome a safe layer must give: `denied`
// (refused without asking: a deny rule, plan or dontAsk mode), `asked` (the host was asked), or `allowed`.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { PermissionVerdict } from '../../src/executor/pipeline.js';
import { shellAnalyzer } from '../../src/cli/shell-analyzer.js';
import { silentLogger } from '../../src/log/logger.js';
import { createPermissionLayer } from '../../src/permissions/layer.js';
import { RuleSet, rulesFrom } from '../../src/permissions/rules.js';
import { builtinTools } from '../../src/tools/builtin/index.js';
import type { AnyTool } from '../../src/tools/tool.js';
import { type Category, type Probe, type ToolName, allProbes, makeFixture } from './probes.js';
import { fixedUpdateTarget } from '../../src/permissions/updates.js';
import { resourceTools } from '../../src/mcp/resource-tools.js';
import { adaptMcpTool } from '../../src/mcp/tool-adapter.js';

const fx = makeFixture();
const mcp = (server: string, name: string, annotations?: { readOnlyHint: boolean }): AnyTool =>
  adaptMcpTool({ name, inputSchema: { type: 'object' }, ...(annotations ? { annotations } : {}) }, { server, source: 'sdk', timeoutMs: 1000, maxOutputChars: 1000, call: async () => ({ content: [] }) });
const tools = new Map<string, AnyTool>(
  [...builtinTools({ projectDir: fx.project }), mcp('h', 'mark', { readOnlyHint: true }), mcp('h__x', 't'), ...resourceTools({ withResources: () => new Map() }, 1000)].map((t) => [t.name, t]),
);
const probes = allProbes(fx);

afterAll(() => {
  rmSync(fx.root, { recursive: true, force: true });
});

function toolNamed(name: ToolName): AnyTool {
  const t = tools.get(name);
  if (!t) throw new Error(`no built-in tool named ${name}`);
  return t;
}

type Outcome = Probe['expect'];

async function outcomeOf(p: Probe): Promise<{ outcome: Outcome; verdict: PermissionVerdict }> {
  let asked = false;
  const verdict = await verdictOf(p, () => {
    asked = true;
  });
  const outcome: Outcome = verdict.behavior === 'allow' ? 'allowed' : asked ? 'asked' : 'denied';
  // What decided to ask (a rule, a mode, a hook): the same call with nobody to ask names it in decidedBy.
  return { outcome, verdict: asked ? await verdictOf(p, undefined) : verdict };
}

async function verdictOf(p: Probe, onAsk: (() => void) | undefined): Promise<PermissionVerdict> {
  const rules = new RuleSet();
  const invalid: string[] = [];
  for (const behavior of ['allow', 'deny', 'ask'] as const) {
    const spec = p[behavior];
    if (spec) rules.add(rulesFrom(spec.rules, behavior, spec.source, fx.project, (t) => invalid.push(t)));
  }
  // A probe whose rule does not even parse would prove nothing about matching.
  if (invalid.length) throw new Error(`probe "${p.name}" has unparsable rules: ${invalid.join(', ')}`);
  const layer = createPermissionLayer({
    rules,
    getMode: () => p.mode ?? 'default',
    analyzer: shellAnalyzer,
    prompter: onAsk && {
      ask: async () => {
        onAsk();
        return { behavior: 'deny', message: 'refused by the probe host' };
      },
    },
    updates: fixedUpdateTarget(rules, fx.project),
    logger: silentLogger(),
  });
  return layer.check(
    { tool: toolNamed(p.tool), input: p.input, toolUseId: 'toolu_probe', hook: p.hook, shared: { cwd: fx.project, additionalDirectories: p.addDirs ?? [] } },
    new AbortController().signal,
  );
}

/** Short form of a verdict for failure messages: what decided it. */
function summary(v: PermissionVerdict): string {
  return v.behavior === 'deny' ? `deny by ${v.meta.decidedBy ?? '?'}: ${v.message}` : `allow by ${v.meta.decidedBy ?? '?'}`;
}

function label(p: Probe): string {
  return p.name.replace(/[\r\n\u000b]/g, ' ');
}

describe('probe inputs are what the model could really send', () => {
  it('every probe input passes its tool schema, and names are unique', () => {
    const bad = probes.filter((p) => !toolNamed(p.tool).inputSchema.safeParse(p.input).success).map((p) => p.name);
    expect(bad).toEqual([]);
    const names = probes.map((p) => `${p.category}/${p.name}`);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);
  });
});

const CATEGORIES: Category[] = ['shell', 'path', 'acceptEdits', 'precedence', 'links', 'mcp'];

for (const category of CATEGORIES) {
  describe(`${category} probes`, () => {
    for (const p of probes.filter((x) => x.category === category)) {
      it(`${p.expect === 'denied' ? 'denies' : p.expect === 'asked' ? 'asks' : 'allows'}: ${label(p)}`, async () => {
        const { outcome, verdict } = await outcomeOf(p);
        expect(outcome, summary(verdict)).toBe(p.expect);
        if (p.by !== undefined) expect((verdict.meta.decidedBy ?? '').startsWith(p.by), summary(verdict)).toBe(true);
      });
    }
  });
}

describe('corpus summary', () => {
  it('holds at least 100 refusal probes (at least 40 of them shell), both kinds of refusal, and allowed controls', async () => {
    const refusals = probes.filter((p) => p.expect !== 'allowed');
    const controls = probes.filter((p) => p.expect === 'allowed');
    expect(refusals.filter((p) => p.category === 'shell').length).toBeGreaterThanOrEqual(40);
    expect(refusals.filter((p) => p.expect === 'denied').length).toBeGreaterThan(0);
    expect(refusals.filter((p) => p.expect === 'asked').length).toBeGreaterThan(0);
    expect(controls.length).toBeGreaterThan(0);
    const outcomes = await Promise.all(refusals.map(async (p) => (await outcomeOf(p)).outcome));
    expect(outcomes.filter((o) => o !== 'allowed').length).toBeGreaterThanOrEqual(100);
    // Every control must be allowed, or the refusals above could be an artefact of a harness that refuses everything.
    const controlOutcomes = await Promise.all(controls.map(async (p) => (await outcomeOf(p)).outcome));
    expect(controlOutcomes).toEqual(controls.map(() => 'allowed'));
  });
});
