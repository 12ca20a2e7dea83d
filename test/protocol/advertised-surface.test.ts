// What agentd advertises — the initialize answer's capabilities and flags, what `--help`, protocol/CHANGELOG.md and
// the README say is sent or served — against what the code handles and emits, each side derived from its own
// source, so the test fails when one changes without the other:
//  - handled control subtypes: the router's table (SUPPORTED_CONTROL_SUBTYPES), and the handler object built from
//    it (createControlHandlers);
//  - emitted frames: every frame literal the protocol adapter builds (src/control, and src/cli for keep_alive and
//    the start-up result), read from the source with the TypeScript parser and matched against the wire contract
//    (protocol/schema/OutboundFrame.json, generated from the zod schemas);
//  - the universe of names a document may claim: that wire contract, plus the control subtypes the official SDK
//    defines (its sdk.d.ts), so a claim about a frame or request agentd does not have is caught too;
//  - capabilities: the real initialize answer, each advertised capability exercised against the code.
// Document convention: a paragraph or list item that starts with "Not sent" or "Not served" lists names agentd does
// NOT send or serve; everywhere else a backticked name is a claim that it does.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { SUPPORTED_CONTROL_SUBTYPES } from '../../protocol/src/runtime.js';
import { createControlHandlers } from '../../src/control/handlers.js';
import { buildInitializeResponse } from '../../src/control/initialize.js';
import { helpText } from '../../src/cli/help.js';
import { type HookCallbackPort, HookRunner } from '../../src/hooks/runner.js';
import { silentLogger } from '../../src/log/logger.js';
import { ModelNames, NO_MODEL_POLICY } from '../../src/model/model-allowlist.js';
import { modelRows } from '../../src/model/model-rows.js';
import { FIRST_PARTY_ENV } from '../../src/model/names.js';
import { ROOT } from '../support/daemon.js';
import { type SessionHarness, sessionHarness } from '../support/session-harness.js';

const read = (rel: string): string => readFileSync(join(ROOT, rel), 'utf8');

// ---- The wire contract: every frame agentd could send --------------------------------------------------------

interface JsonSchema {
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  const?: unknown;
}

/** `system/<subtype>` for system frames, the `type` otherwise; and the subtypes of control requests agentd sends. */
function wireContract(): { frames: Set<string>; requests: Set<string> } {
  const schema = JSON.parse(read('protocol/schema/OutboundFrame.json')) as JsonSchema;
  const frames = new Set<string>();
  const requests = new Set<string>();
  for (const option of schema.anyOf ?? []) {
    const type = option.properties?.['type']?.const;
    if (typeof type !== 'string') throw new Error('an OutboundFrame option without a constant type');
    const subtype = option.properties?.['subtype']?.const;
    frames.add(type === 'system' ? `system/${String(subtype)}` : type);
    for (const r of option.properties?.['request']?.anyOf ?? []) {
      const s = r.properties?.['subtype']?.const;
      if (typeof s === 'string') requests.add(s);
    }
  }
  return { frames, requests };
}

/** The control request subtypes the official SDK defines (host → CLI and CLI → host alike). */
function sdkControlSubtypes(): Set<string> {
  const dts = read('node_modules/@anthropic-ai/claude-agent-sdk/sdk.d.ts');
  const inner = /declare type SDKControlRequestInner = ([^;]+);/.exec(dts)?.[1];
  if (!inner) throw new Error('sdk.d.ts: SDKControlRequestInner not found (did the SDK change its type names?)');
  const out = new Set<string>();
  for (const name of inner.split('|').map((s) => s.trim())) {
    const body = new RegExp(`declare type ${name} = \\{[^]*?subtype: '([a-z_]+)'`).exec(dts);
    if (body?.[1]) out.add(body[1]);
  }
  if (out.size < 20) throw new Error(`sdk.d.ts: only ${out.size} control subtypes found`);
  return out;
}

// ---- What the code emits -------------------------------------------------------------------------------------

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function literal(e: ts.Expression | undefined): string | undefined {
  let x = e;
  while (x && (ts.isAsExpression(x) || ts.isParenthesizedExpression(x) || ts.isSatisfiesExpression(x))) x = x.expression;
  return x && (ts.isStringLiteral(x) || ts.isNoSubstitutionTemplateLiteral(x)) ? x.text : undefined;
}

/** Frame keys and control-request subtypes of the object literals the protocol adapter builds. */
function emittedByCode(contract: { frames: Set<string>; requests: Set<string> }): { frames: Set<string>; requests: Set<string> } {
  const frames = new Set<string>();
  const requests = new Set<string>();
  for (const file of [...sourceFiles(join(ROOT, 'src/control')), ...sourceFiles(join(ROOT, 'src/cli'))]) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isObjectLiteralExpression(node)) {
        const prop = (name: string): string | undefined => {
          for (const p of node.properties) if (ts.isPropertyAssignment(p) && p.name.getText(sf) === name) return literal(p.initializer);
          return undefined;
        };
        const type = prop('type');
        const subtype = prop('subtype');
        const key = type === 'system' ? `system/${subtype ?? '?'}` : type;
        if (key !== undefined && contract.frames.has(key)) frames.add(key);
        if (type === undefined && subtype !== undefined && contract.requests.has(subtype)) requests.add(subtype);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { frames, requests };
}

// ---- What the documents claim --------------------------------------------------------------------------------

interface Claims {
  /** Names claimed to be sent or served, with where (for the failure message). */
  positive: Map<string, string>;
  /** Names listed as not sent / not served. */
  negative: Map<string, string>;
  /** Every backticked word (coverage: is a name documented at all). */
  words: Set<string>;
}

/**
 * The names a Markdown or plain text mentions, by block (paragraphs and list items). A mention counts when it is a
 * whole backticked span, or one of its `/`-separated parts (in plain text: a word, not part of a dotted field path
 * or of another word) naming a frame of the wire
 * contract (`system/x`, or a bare `x` for a system subtype), a control request the SDK defines or agentd serves
 * or sends, or a capability (`…_v<n>`). It lists a name agentd does NOT have when its block starts "Not sent" or
 * "Not served", when "no" comes right before it, or when "(is|are) not sent / never sent / not served" comes right
 * after it; every other mention claims that agentd sends or serves the name. (So write "`x` is not sent", not
 * "agentd does not send `x`".)
 */
function claims(text: string, names: (word: string) => string | undefined, where: string, backticksOnly = true): Claims {
  const out: Claims = { positive: new Map(), negative: new Map(), words: new Set() };
  for (const block of text.split(/\n(?=\s*\n)|\n(?=\s*[-*] )|\n(?=#)/)) {
    const trimmed = block.trim().replace(/^[-*]\s+/, '');
    const notBlock = /^(\*\*)?Not (sent|served)\b/.test(trimmed);
    const mentions = backticksOnly
      ? [...block.matchAll(/`([^`]+)`/g)].flatMap((m) => {
          const span = (m[1] ?? '').trim();
          // `a/b/c` names each of a, b and c (but `system/x` is one name).
          const words = names(span) !== undefined ? [span] : span.split('/');
          return words.map((word) => ({ word, at: m.index, end: m.index + m[0].length }));
        })
      : [...block.matchAll(/(?<![\w.])(?:system\/[a-z_]+|[a-z][a-z0-9_]*)(?![\w.])/g)].map((m) => ({ word: m[0], at: m.index, end: m.index + m[0].length }));
    for (const { word, at, end } of mentions) {
      out.words.add(word);
      const name = names(word);
      if (name === undefined) continue;
      const before = block.slice(Math.max(0, at - 4), at);
      const after = block.slice(end, end + 40);
      const negative = notBlock || /\bno\s+$/i.test(before) || /^\s*(?:(?:is|are)\s+)?(?:not|never)\s+(?:sent|served|emitted)\b/i.test(after);
      (negative ? out.negative : out.positive).set(name, `${where}: …${trimmed.slice(0, 120)}…`);
    }
  }
  return out;
}

// ---- The test -------------------------------------------------------------------------------------------------

const harnesses: SessionHarness[] = [];
afterEach(() => {
  for (const h of harnesses.splice(0)) h.session.endOfInput();
});

function handlersOver(harness: SessionHarness): ReturnType<typeof createControlHandlers> {
  return createControlHandlers({
    session: harness.session,
    initialize: () => initializeAnswer(),
    bypassRefusal: undefined,
    disabledModes: new Map(),
    models: new ModelNames(FIRST_PARTY_ENV, NO_MODEL_POLICY),
    onPermissionMode: () => undefined,
    mcpStatus: () => [],
    reloadSkills: () => [],
    stopTask: async () => false,
    mcpMessage: () => false,
    mcpReconnect: async () => undefined,
    mcpToggle: async () => undefined,
    mcpSetServers: async () => ({ added: [], removed: [], errors: {} }),
    mcpModeOverride: () => true,
    mcpAuth: { authenticate: async () => ({ requiresUserAction: false, callbackExpected: false }), submitCallback: async () => undefined, clearAuth: async () => undefined },
    contextSnapshot: async () => ({ model: 'claude-test', system: [], tools: [], messages: [] }),
    reloadOutputStyles: () => ['default'],
    persistTitle: () => undefined,
  });
}

function initializeAnswer(): ReturnType<typeof buildInitializeResponse> {
  return buildInitializeResponse({ models: modelRows(new ModelNames(FIRST_PARTY_ENV, NO_MODEL_POLICY), 'claude-test'), currentModel: 'claude-test', permissionMode: 'default', account: { apiProvider: 'firstParty' }, hooksApplied: true, agentdVersion: '0.0.0', busy: false, commands: [], agents: [] });
}

/**
 * What each capability or `*_supported` flag the initialize answer may advertise promises, exercised against the
 * code. An advertised name without an entry here fails the test: say what proves it before advertising it.
 */
const EVIDENCE: Record<string, () => Promise<void>> = {
  // The interrupt answer is a receipt: what is still queued.
  interrupt_receipt_v1: async () => {
    const harness = sessionHarness({});
    harnesses.push(harness);
    const r = await handlersOver(harness).interrupt({ subtype: 'interrupt' });
    expect(r).toMatchObject({ ok: true, response: { still_queued: [] } });
  },
  // interrupt with cancel_queued drops the queued prompts and names them.
  interrupt_cancel_queued_v1: async () => {
    const harness = sessionHarness({ scenario: { rules: [{ reply: { content: [{ type: 'text', text: 'slow' }], delays: { firstTokenMs: 60_000 } } }] } });
    harnesses.push(harness);
    // p1's turn starts first; p2 and p3 wait behind it (submitted together, they would be folded into one turn).
    harness.session.submit({ uuid: 'p1', content: 'p1', shouldQuery: true, isSynthetic: false });
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (const uuid of ['p2', 'p3']) harness.session.submit({ uuid, content: uuid, shouldQuery: true, isSynthetic: false });
    const r = await handlersOver(harness).interrupt({ subtype: 'interrupt', cancel_queued: true });
    expect(r).toMatchObject({ ok: true, response: { still_queued: [], cancelled: ['p2', 'p3'] } });
    if (r.ok) r.after?.();
  },
  // A hook matcher's onFailure is honoured: a failed callback with "block" blocks, with "continue" proceeds.
  hook_on_failure_supported: async () => {
    const port: HookCallbackPort = { call: async () => Promise.reject(new Error('down')) };
    const runs = [];
    for (const onFailure of ['block', 'continue'] as const) {
      const r = new HookRunner(port, {}, silentLogger(), undefined);
      r.setCallbacks([{ kind: 'callback', event: 'PreToolUse', matcher: undefined, callbackIds: ['h'], timeoutSec: undefined, onFailure }]);
      runs.push(...(await r.run('PreToolUse', 'Bash', {}, new AbortController().signal)));
    }
    expect(runs).toEqual([
      { ok: true, name: 'callback:h', output: {}, blocking: 'The hook callback:h failed (down), and its onFailure is "block".' },
      { ok: false, name: 'callback:h', error: 'down', failure: 'callback_error', proceeds: true },
    ]);
  },
};

describe('advertised = what runs', () => {
  const contract = wireContract();
  const sdkControl = sdkControlSubtypes();
  const emitted = emittedByCode(contract);
  const handled = new Set<string>(SUPPORTED_CONTROL_SUBTYPES);
  const capabilities = new Set(initializeAnswer().capabilities);
  // A name a document may make a claim about, normalised: `system/x`, `request:x` (a control request), `capability:x`.
  const names = (word: string): string | undefined => {
    if (contract.frames.has(word) && word.startsWith('system/')) return word;
    if (contract.frames.has(`system/${word}`)) return `system/${word}`;
    if (['keep_alive', 'conversation_reset', 'stream_event', 'tool_progress', 'control_cancel_request'].includes(word) && contract.frames.has(word)) return word;
    if (sdkControl.has(word) || handled.has(word) || contract.requests.has(word)) return `request:${word}`;
    if (/_v\d+$/.test(word)) return `capability:${word}`;
    return undefined;
  };
  const runs = (name: string): boolean => {
    if (name.startsWith('request:')) {
      const s = name.slice('request:'.length);
      return handled.has(s) || emitted.requests.has(s);
    }
    if (name.startsWith('capability:')) return capabilities.has(name.slice('capability:'.length));
    return emitted.frames.has(name);
  };

  it('the code’s own tables agree: a handler for every subtype the router serves; frames found in the adapter', () => {
    const harness = sessionHarness({});
    harnesses.push(harness);
    expect(Object.keys(handlersOver(harness)).sort()).toEqual([...handled].sort());
    // Sanity of the source scan: it sees frames from the projector, the task frames, the router and the CLI.
    for (const f of ['system/init', 'system/task_started', 'control_response', 'keep_alive', 'result']) expect(emitted.frames).toContain(f);
    expect([...emitted.requests].sort()).toEqual([...contract.requests].sort());
  });

  it('every capability and flag the initialize answer advertises is exercised against the code', async () => {
    const answer = initializeAnswer() as Record<string, unknown>;
    const advertised = [...capabilities, ...Object.keys(answer).filter((k) => k.endsWith('_supported') && answer[k] === true)];
    expect(advertised.filter((a) => !(a in EVIDENCE))).toEqual([]);
    for (const a of advertised) await EVIDENCE[a]?.();
  });

  const docs: Array<[string, () => Claims]> = [
    ['--help', () => claims(helpText(), names, '--help', false)],
    ['protocol/CHANGELOG.md', () => claims(read('protocol/CHANGELOG.md'), names, 'CHANGELOG')],
    ['README.md', () => claims(read('README.md'), names, 'README')],
  ];

  it.each(docs)('%s claims only what runs, and lists as not sent only what does not', (_doc, get) => {
    const c = get();
    expect([...c.positive].filter(([n]) => !runs(n)).map(([n, at]) => `${n} (${at})`)).toEqual([]);
    expect([...c.negative].filter(([n]) => runs(n)).map(([n, at]) => `${n} (${at})`)).toEqual([]);
  });

  it('the CHANGELOG documents every served control request, every frame and request sent, and every capability', () => {
    const c = claims(read('protocol/CHANGELOG.md'), names, 'CHANGELOG');
    const all = [...[...handled].map((s) => `request:${s}`), ...[...emitted.requests].map((s) => `request:${s}`), ...[...emitted.frames].filter((f) => f.startsWith('system/') || names(f) === f), ...[...capabilities].map((x) => `capability:${x}`)];
    expect(all.filter((n) => !c.positive.has(n))).toEqual([]);
    const answer = initializeAnswer() as Record<string, unknown>;
    const flags = Object.keys(answer).filter((k) => k.endsWith('_supported') && answer[k] === true);
    expect(flags.filter((f) => ![...c.words].some((w) => w === f || w.startsWith(`${f}:`)))).toEqual([]);
  });
});
