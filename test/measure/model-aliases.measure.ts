// MEASUREMENT (not part of npm test): which model id Claude Code 2.1.330 sends for each model name, and what it
// does with availableModels. Drives the reference binary through the TS SDK against a loopback server; prints one
// block per variant (system/init.model, set_model outcomes, each request's model/path and whether it carried the
// context-1m beta, costs). ONLY=<prefix,…> runs some; SHOW_BETA=1 prints every beta header; SHOW_USER=1 the tool
// results. Run: npx vitest run -c test/measure/vitest.measure.config.ts test/measure/model-aliases.measure.ts
//
// Measured (2026-11-29). name given → system/init.model (request model when it differs; +1M = context-1m beta):
//  first party      default, none, opus, best, OPUS, opus[1m], best[1m], claude-opus-5-5[1m] → claude-opus-5-5
//                   sonnet, Sonnet, " sonnet ", sonnet[1m], opusplan → claude-sonnet-5-5 (opusplan in plan mode:
//                   init claude-sonnet-5-5, requests claude-opus-5-5); haiku, haiku[1m] → claude-haiku-5-5;
//                   fable → claude-fable-5-2; claude-sonnet-4-5 → as typed; claude-sonnet-4-5[1m] →
//                   claude-sonnet-4-5[1m] (sent claude-sonnet-4-5 +1M), same for claude-opus-4-6[1m],
//                   claude-opus-4-5[1m], claude-haiku-4-5[1m], claude-sonnet-4-6[1m], claude-3-7-sonnet-…[1m];
//                   claude-opus-4-0 / -4-1 / -4-20250514 / -4-1-20250805 → claude-opus-5-5 (kept with
//                   CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP=1); my-custom-model, My-Model, inherit, mythos,
//                   sonnet-4-5, opus-4-6, claude-mythos-5 → as typed (unknown ones logged unrecognized_model).
//  ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU}_MODEL=my-* (first party): default/none → my-opus[1m] (sent my-opus +1M);
//                   opus, best → my-opus; sonnet, opusplan → my-sonnet; haiku → my-haiku; sonnet[1m] →
//                   my-sonnet[1m]; ANTHROPIC_DEFAULT_OPUS_MODEL=claude-opus-4-6: default → claude-opus-4-6[1m],
//                   opus → claude-opus-4-6; =claude-opus-4-5: default → claude-opus-4-5; only the Sonnet override:
//                   default → claude-opus-5-5; ANTHROPIC_DEFAULT_SONNET_MODEL=haiku: sonnet → `haiku` as typed;
//                   ANTHROPIC_DEFAULT_FABLE_MODEL=my-fable: fable → my-fable.
//  ANTHROPIC_DEFAULT_MODEL=sonnet → claude-sonnet-5-5 (below settings `model`; what set_model/--model `default`
//                   select); ANTHROPIC_MODEL=sonnet and settings model sonnet → claude-sonnet-5-5.
//  Bedrock (us-east-1) default, opus, best, opus[1m] → us.anthropic.claude-opus-5-5; sonnet, opusplan →
//                   us.anthropic.claude-sonnet-4-5-20250929-v1:0; sonnet[1m] → that + [1m]; haiku →
//                   us.anthropic.claude-haiku-4-5-20251001-v1:0; fable → us.anthropic.claude-fable-5-2;
//                   eu-west-1: eu.…; ANTHROPIC_BEDROCK_REGION_PREFIX=global: global.…; ids as typed in init:
//                   claude-sonnet-4-5 and claude-haiku-4-5 and claude-opus-4-1 sent as typed (/model/claude-…),
//                   claude-sonnet-4-5-20250929 → sent us.anthropic.claude-sonnet-4-5-20250929-v1:0,
//                   claude-opus-5-5 → sent us.anthropic.claude-opus-5-5, claude-opus-4-6[1m] → sent
//                   us.anthropic.claude-opus-4-6-v1, us.anthropic.… in eu-west-1 → sent unchanged;
//                   overrides sent as typed; only the Sonnet override → default my-sonnet; Opus override → my-opus.
//  Vertex           default, opus, best, opus[1m] → claude-opus-5-5; sonnet, opusplan → claude-sonnet-4-5@20250929;
//                   haiku → claude-haiku-4-5@20251001; claude-opus-4-1 → as typed; claude-opus-4-1-20250805 →
//                   sent claude-opus-4-1@20250805; claude-sonnet-4-5 → as typed; Opus override → my-opus.
//  Foundry          default, sonnet, opusplan → claude-sonnet-4-5; opus, best → claude-opus-4-6; opus[1m] →
//                   claude-opus-4-6[1m]; haiku → claude-haiku-4-5; dated ids (claude-sonnet-4-5-20250929,
//                   claude-opus-4-1-20250805) sent as typed.
//  set_model        (after --model sonnet) opus → claude-opus-5-5, haiku → claude-haiku-5-5, default / undefined →
//                   claude-opus-5-5 (the default, not the launch model, also after --model haiku, ANTHROPIC_MODEL or
//                   settings model), sonnet[1m] → claude-sonnet-5-5; an id it does not know (bogus-x) is checked
//                   with a model request first ("Unable to validate model" when that fails); system/init per turn.
//  fallback         --model opus --fallback-model sonnet, three 529s → claude-sonnet-5-5 (claude-sonnet-4-5[1m]:
//                   sent claude-sonnet-4-5 +1M).
//  Agent tool       model haiku → claude-haiku-5-5; sonnet with the override → my-sonnet.
//  small model      WebFetch's request: the session's model (claude-sonnet-5-5; Bedrock us.anthropic.claude-opus-5-5)
//                   unless ANTHROPIC_SMALL_FAST_MODEL (=haiku sent as `haiku`) or ANTHROPIC_DEFAULT_HAIKU_MODEL.
//  cost, window     1M in + 1M out: claude-sonnet-5-5 $12, claude-opus-5-5 $24, claude-haiku-5-5 $3 (0.50/2.50
//                   over 100k), claude-sonnet-4-5[1m] $18, unknown $24 (costBasis "unknown"; 3P unknown $5/M in);
//                   modelUsage keyed by the name (claude-sonnet-4-5[1m]), contextWindow 1M for [1m] and unknown,
//                   maxOutputTokens the catalog default (32000 unknown), costBasis "list".
//  availableModels  (supportedModels rows after `default`) user ['sonnet','haiku'] → sonnet, haiku; set_model opus
//                   ok (it is the default model), haiku ok, claude-opus-5-5 ok, fable → error 'Model "fable" is
//                   restricted by your organization's settings. Using claude-opus-5-5 instead.'; --model haiku,
//                   ANTHROPIC_MODEL=haiku, settings model haiku with ['sonnet'] → the default, no error; project,
//                   local, managedSettings lists honoured; user+project and user+local lists add up; a managed
//                   list replaces the user's; [] → only default; ['claude-sonnet-5-5','claude-opus-4-6'] → rows
//                   claude-opus-4-6[1m], sonnet, claude-opus-4-6, claude-sonnet-4-5 refused; ['opus-4-6',
//                   'claude-sonnet-5'] allow claude-opus-4-6, -20260101, claude-sonnet-5-5, claude-sonnet-5;
//                   ['my-model','sonnet'] → no row for my-model, set_model my-model allowed, other-model refused;
//                   Bedrock ['sonnet','claude-opus-4-6'] → us.anthropic.claude-opus-4-6-v1 refused; agent model opus
//                   with ['sonnet'] → the parent's model; --fallback-model haiku with ['opus'] → no fallback;
//                   a string instead of a list, or enforceAvailableModels "yes" → ignored (full list).
//  enforce          ['sonnet','haiku'] + true → default claude-sonnet-5-5 (['haiku','sonnet'] → haiku; an unknown
//                   first entry skipped), set_model opus refused; from a project file too; user list + project
//                   enforce → enforced; managed enforce without a managed list → not enforced.
//  availableModelsMatch "exact" (managed) ['claude-sonnet-5'] → default claude-sonnet-5, claude-sonnet-5-5 refused.
//  deniedModels     (managed) ['opus'] → default claude-sonnet-5-5, rows default, sonnet, fable, haiku; opus and
//                   claude-opus-4-6 refused. ['claude-opus-5-5'] → default and `opus` claude-opus-5, its row by id.
//                   ['claude-opus-5'] → default claude-opus-4-8 (later minors blocked too). In a user file: ignored.
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { type SDKUserMessage, query } from '@anthropic-ai/claude-agent-sdk';
import { startLoopbackServer } from '../support/loopback-server.js';
import { ROOT, tempDir } from '../support/daemon.js';
import { makeTestPki } from '../support/tls.js';

const CLAUDE = join(ROOT, 'node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude');

type Provider = 'first' | 'bedrock' | 'vertex' | 'foundry';
interface Variant {
  name: string;
  model?: string;
  fallback?: string;
  provider?: Provider;
  env?: Record<string, string>;
  user?: object;
  project?: object;
  local?: object;
  managed?: object;
  /** set_model calls between turns (one turn per entry, plus the first). */
  setModels?: Array<string | undefined>;
  extraArgs?: Record<string, string | null>;
  supported?: boolean;
  agentModel?: string;
  permissionMode?: 'plan' | 'default';
  /** Replaces the default scenario (one text reply); `$URL` in tool inputs is the server's address. */
  rules?: object[];
  /** Serve HTTPS (WebFetch upgrades http to https), trusted through NODE_EXTRA_CA_CERTS. */
  tls?: boolean;
}

const ALIASES = ['default', 'sonnet', 'opus', 'haiku', 'opusplan', 'best', 'fable', 'sonnet[1m]', 'opus[1m]', 'haiku[1m]', 'claude-sonnet-4-5', 'claude-sonnet-4-5[1m]', 'claude-opus-4-1', 'my-custom-model', 'Sonnet', 'inherit'];
const OVERRIDES = { ANTHROPIC_DEFAULT_SONNET_MODEL: 'my-sonnet', ANTHROPIC_DEFAULT_OPUS_MODEL: 'my-opus', ANTHROPIC_DEFAULT_HAIKU_MODEL: 'my-haiku' };

const variants: Variant[] = [
  { name: 'none first', supported: true },
  ...ALIASES.map((m) => ({ name: `alias first ${m}`, model: m })),
  ...['default', 'sonnet', 'opus', 'haiku', 'opusplan', 'best', 'sonnet[1m]'].map((m) => ({ name: `override first ${m}`, model: m, env: OVERRIDES })),
  { name: 'override none', env: OVERRIDES },
  { name: 'override none supported', env: OVERRIDES, supported: true },
  ...(['bedrock', 'vertex', 'foundry'] as const).flatMap((p) => [
    { name: `provider ${p} none`, provider: p, supported: true },
    ...['default', 'sonnet', 'opus', 'haiku', 'opusplan', 'best', 'sonnet[1m]', 'claude-opus-4-1'].map((m) => ({ name: `provider ${p} ${m}`, provider: p, model: m })),
    ...['sonnet', 'opus', 'haiku'].map((m) => ({ name: `provider ${p} override ${m}`, provider: p, model: m, env: OVERRIDES })),
  ]),
  { name: 'env ANTHROPIC_MODEL=sonnet', env: { ANTHROPIC_MODEL: 'sonnet' } },
  { name: 'env ANTHROPIC_MODEL=opus[1m]', env: { ANTHROPIC_MODEL: 'opus[1m]' } },
  { name: 'env ANTHROPIC_SMALL_FAST_MODEL=haiku', env: { ANTHROPIC_SMALL_FAST_MODEL: 'zzz' } },
  { name: 'settings model sonnet', user: { model: 'sonnet' } },
  { name: 'settings model opusplan plan', user: { model: 'opusplan' }, permissionMode: 'plan' },
  { name: 'opusplan in plan mode', model: 'opusplan', permissionMode: 'plan' },
  { name: 'set_model opus', model: 'sonnet', setModels: ['opus', 'haiku', 'default', undefined, 'sonnet[1m]', 'bogus-x'] },
  { name: 'set_model overrides', model: 'sonnet', env: OVERRIDES, setModels: ['opus', 'haiku'] },
  { name: 'fallback sonnet', model: 'opus', fallback: 'sonnet' },
  { name: 'agent model haiku', agentModel: 'haiku' },
  { name: 'agent model opus', agentModel: 'opus' },
  { name: 'agent model sonnet override', agentModel: 'sonnet', env: OVERRIDES },
  // Round 2.
  ...['claude-sonnet-4-5', 'claude-sonnet-4-5-20250929', 'claude-opus-5-5', 'claude-haiku-4-5', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-opus-4-6[1m]', 'fable'].map((m) => ({ name: `provider bedrock id ${m}`, provider: 'bedrock' as const, model: m })),
  ...['claude-sonnet-4-5', 'claude-opus-4-6', 'fable'].map((m) => ({ name: `provider vertex id ${m}`, provider: 'vertex' as const, model: m })),
  ...['claude-sonnet-4-5-20250929', 'claude-opus-5-5', 'fable'].map((m) => ({ name: `provider foundry id ${m}`, provider: 'foundry' as const, model: m })),
  { name: 'provider bedrock eu sonnet', provider: 'bedrock', model: 'sonnet', env: { AWS_REGION: 'eu-west-1' } },
  { name: 'provider bedrock prefix global sonnet', provider: 'bedrock', model: 'sonnet', env: { ANTHROPIC_BEDROCK_REGION_PREFIX: 'global' } },
  { name: 'provider bedrock only-sonnet-override none', provider: 'bedrock', env: { ANTHROPIC_DEFAULT_SONNET_MODEL: 'my-sonnet' } },
  { name: 'provider vertex only-sonnet-override none', provider: 'vertex', env: { ANTHROPIC_DEFAULT_SONNET_MODEL: 'my-sonnet' } },
  { name: 'provider bedrock opus-override none', provider: 'bedrock', env: { ANTHROPIC_DEFAULT_OPUS_MODEL: 'my-opus' } },
  { name: 'provider foundry sonnet-override none', provider: 'foundry', env: { ANTHROPIC_DEFAULT_SONNET_MODEL: 'my-sonnet' } },
  { name: 'first only-sonnet-override none', env: { ANTHROPIC_DEFAULT_SONNET_MODEL: 'my-sonnet' } },
  { name: 'first opus-override known none', env: { ANTHROPIC_DEFAULT_OPUS_MODEL: 'claude-opus-4-6' } },
  { name: 'first opus-override known opus', model: 'opus', env: { ANTHROPIC_DEFAULT_OPUS_MODEL: 'claude-opus-4-6' } },
  { name: 'first opus-override 4-5 none', env: { ANTHROPIC_DEFAULT_OPUS_MODEL: 'claude-opus-4-5' } },
  { name: 'first override alias-valued', model: 'sonnet', env: { ANTHROPIC_DEFAULT_SONNET_MODEL: 'haiku' } },
  { name: 'first ANTHROPIC_DEFAULT_MODEL=sonnet', env: { ANTHROPIC_DEFAULT_MODEL: 'sonnet' } },
  { name: 'first legacy remap disabled', model: 'claude-opus-4-1', env: { CLAUDE_CODE_DISABLE_LEGACY_MODEL_REMAP: '1' } },
  ...['claude-opus-4-0', 'claude-opus-4-20250514', 'claude-opus-4-1-20250805', 'claude-3-7-sonnet-20250219', 'claude-sonnet-4-0', 'claude-opus-4-5', 'claude-sonnet-4-6[1m]', 'claude-opus-4-6[1m]', 'claude-opus-5-5[1m]', 'opusplan[1m]', 'best[1m]', 'OPUS', ' sonnet ', 'sonnet-4-5', 'opus-4-6', 'claude-mythos-5', 'mythos'].map((m) => ({ name: `id first ${m}`, model: m })),
  { name: 'cost sonnet', model: 'sonnet', rules: [{ reply: { content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 1000000, output_tokens: 1000000 } } }] },
  { name: 'cost haiku', model: 'haiku', rules: [{ reply: { content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 1000000, output_tokens: 1000000 } } }] },
  { name: 'cost opus', model: 'opus', rules: [{ reply: { content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 1000000, output_tokens: 1000000 } } }] },
  { name: 'cost custom', model: 'my-custom', rules: [{ reply: { content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 1000000, output_tokens: 1000000 } } }] },
  { name: 'cost sonnet-4-5[1m]', model: 'claude-sonnet-4-5[1m]', rules: [{ reply: { content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 1000000, output_tokens: 1000000 } } }] },
  { name: 'fallback overloaded', model: 'opus', fallback: 'sonnet', rules: [{ when: { model: 'claude-opus-5-5' }, reply: { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } } }] },
  { name: 'fallback overloaded haiku[1m]', model: 'opus', fallback: 'claude-sonnet-4-5[1m]', rules: [{ when: { model: 'claude-opus-5-5' }, reply: { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } } }] },
  { name: 'small model webfetch', model: 'sonnet', rules: [{ when: { hasToolResults: false, requestIndex: 0 }, reply: { content: [{ type: 'tool_use', id: 'toolu_w', name: 'WebFetch', input: { url: '{{URL}}/page', prompt: 'summarise' } }], stopReason: 'tool_use' } }] },
  // Round 3.
  ...['claude-opus-4-5[1m]', 'claude-haiku-4-5[1m]', 'claude-3-7-sonnet-20250219[1m]', 'my-haiku', 'foo-haiku-bar', 'foo', 'claude-foo', 'My-Model'].map((m) => ({ name: `r3 first ${m}`, model: m })),
  ...(['vertex', 'foundry'] as const).flatMap((p) => ['claude-opus-4-1', 'claude-opus-4-1-20250805', 'claude-sonnet-4-5-20250929', 'opus[1m]', 'claude-opus-4-6[1m]'].map((m) => ({ name: `r3 ${p} ${m}`, provider: p, model: m }))),
  { name: 'r3 bedrock eu explicit us id', provider: 'bedrock', model: 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', env: { AWS_REGION: 'eu-west-1' } },
  { name: 'r3 bedrock opus[1m]', provider: 'bedrock', model: 'opus[1m]' },
  { name: 'r3 vertex opus-override none', provider: 'vertex', env: { ANTHROPIC_DEFAULT_OPUS_MODEL: 'my-opus' } },
  { name: 'r3 foundry opus-override none', provider: 'foundry', env: { ANTHROPIC_DEFAULT_OPUS_MODEL: 'my-opus' } },
  { name: 'r3 bedrock both-override none', provider: 'bedrock', env: { ANTHROPIC_DEFAULT_OPUS_MODEL: 'my-opus', ANTHROPIC_DEFAULT_SONNET_MODEL: 'my-sonnet' } },
  { name: 'r3 fable override', model: 'fable', env: { ANTHROPIC_DEFAULT_FABLE_MODEL: 'my-fable' } },
  { name: 'r3 override names supported', env: { ANTHROPIC_DEFAULT_OPUS_MODEL: 'my-opus', ANTHROPIC_DEFAULT_OPUS_MODEL_NAME: 'My Opus', ANTHROPIC_DEFAULT_OPUS_MODEL_DESCRIPTION: 'Our opus' }, supported: true },
  { name: 'r3 DEFAULT_MODEL vs settings', user: { model: 'haiku' }, env: { ANTHROPIC_DEFAULT_MODEL: 'sonnet' } },
  { name: 'r3 DEFAULT_MODEL set_model default', model: 'haiku', env: { ANTHROPIC_DEFAULT_MODEL: 'sonnet' }, setModels: ['default'] },
  { name: 'r3 DEFAULT_MODEL --model default', model: 'default', env: { ANTHROPIC_DEFAULT_MODEL: 'sonnet' } },
  { name: 'r3 DEFAULT_MODEL id', env: { ANTHROPIC_DEFAULT_MODEL: 'claude-sonnet-4-5' }, supported: true },
  { name: 'r3 ANTHROPIC_MODEL + settings', user: { model: 'haiku' }, env: { ANTHROPIC_MODEL: 'sonnet' } },
  { name: 'r3 settings model + set_model default', user: { model: 'haiku' }, setModels: ['default'] },
  { name: 'r3 --model + set_model default', model: 'haiku', setModels: ['default'] },
  { name: 'r3 ANTHROPIC_MODEL + set_model default', env: { ANTHROPIC_MODEL: 'haiku' }, setModels: ['default'] },
  // Round 4: availableModels / enforceAvailableModels.
  { name: 'am user sonnet,haiku', user: { availableModels: ['sonnet', 'haiku'] }, supported: true, setModels: ['opus', 'haiku', 'claude-haiku-5-5', 'claude-opus-5-5', 'default'] },
  { name: 'am user --model opus', user: { availableModels: ['sonnet', 'haiku'] }, model: 'opus' },
  { name: 'am user --model claude-opus-4-6', user: { availableModels: ['sonnet', 'haiku'] }, model: 'claude-opus-4-6' },
  { name: 'am user enforce', user: { availableModels: ['sonnet', 'haiku'], enforceAvailableModels: true }, supported: true, setModels: ['default', 'opus'] },
  { name: 'am project', project: { availableModels: ['sonnet'] }, supported: true, setModels: ['opus'] },
  { name: 'am project --model opus', project: { availableModels: ['sonnet'] }, model: 'opus' },
  { name: 'am local', local: { availableModels: ['sonnet'] }, supported: true, setModels: ['opus'] },
  { name: 'am managed', managed: { availableModels: ['sonnet'] }, supported: true, setModels: ['opus'] },
  { name: 'am managed enforce', managed: { availableModels: ['sonnet'], enforceAvailableModels: true }, supported: true, setModels: ['opus', 'default'] },
  { name: 'am managed + user wider', managed: { availableModels: ['sonnet'] }, user: { availableModels: ['sonnet', 'opus'] }, supported: true, setModels: ['opus'] },
  { name: 'am user ids', user: { availableModels: ['claude-sonnet-5-5', 'claude-opus-4-6'] }, supported: true, setModels: ['sonnet', 'opus', 'claude-opus-4-6[1m]', 'claude-sonnet-4-5'] },
  { name: 'am user prefix', user: { availableModels: ['opus-4-6', 'claude-sonnet-5'] }, supported: true, setModels: ['claude-opus-4-6', 'claude-sonnet-5-5', 'claude-sonnet-5', 'sonnet', 'claude-opus-4-6-20260101'] },
  { name: 'am user empty', user: { availableModels: [] }, supported: true, setModels: ['opus', 'sonnet', 'default'] },
  { name: 'am user wrong type', user: { availableModels: 'sonnet' }, supported: true, setModels: ['opus'] },
  { name: 'am user enforce wrong type', user: { availableModels: ['sonnet'], enforceAvailableModels: 'yes' }, supported: true, setModels: ['opus'] },
  { name: 'am agent model', user: { availableModels: ['sonnet'] }, model: 'sonnet', agentModel: 'opus' },
  { name: 'am fallback', user: { availableModels: ['opus'] }, model: 'opus', fallback: 'haiku', rules: [{ when: { model: 'claude-opus-5-5' }, reply: { error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } } }] },
  { name: 'am env ANTHROPIC_MODEL', user: { availableModels: ['sonnet'] }, env: { ANTHROPIC_MODEL: 'opus' } },
  { name: 'am settings model', user: { availableModels: ['sonnet'], model: 'opus' } },
  { name: 'am opus override', user: { availableModels: ['opus'] }, env: { ANTHROPIC_DEFAULT_OPUS_MODEL: 'my-opus' }, supported: true, setModels: ['opus', 'my-opus'] },
  { name: 'am provider bedrock', provider: 'bedrock', user: { availableModels: ['sonnet', 'claude-opus-4-6'] }, supported: true, setModels: ['opus', 'claude-opus-4-6', 'us.anthropic.claude-opus-4-6-v1'] },
  { name: 'am5 user+project merge', user: { availableModels: ['sonnet'] }, project: { availableModels: ['haiku'] }, supported: true },
  { name: 'am5 user+local merge', user: { availableModels: ['sonnet'] }, local: { availableModels: ['haiku'] }, supported: true },
  { name: 'am5 managed+project', managed: { availableModels: ['sonnet'] }, project: { availableModels: ['haiku'] }, supported: true },
  { name: 'am5 --model haiku', user: { availableModels: ['sonnet'] }, model: 'haiku', setModels: ['haiku', 'fable'] },
  { name: 'am5 --model haiku enforce', user: { availableModels: ['sonnet'], enforceAvailableModels: true }, model: 'haiku' },
  { name: 'am5 ANTHROPIC_MODEL haiku', user: { availableModels: ['sonnet'] }, env: { ANTHROPIC_MODEL: 'haiku' } },
  { name: 'am5 settings model haiku', user: { availableModels: ['sonnet'], model: 'haiku' } },
  { name: 'am5 project enforce', project: { availableModels: ['sonnet'], enforceAvailableModels: true }, supported: true, setModels: ['haiku'] },
  { name: 'am5 user list + project enforce', user: { availableModels: ['sonnet'] }, project: { enforceAvailableModels: true }, supported: true },
  { name: 'am5 managed enforce no list', managed: { enforceAvailableModels: true }, user: { availableModels: ['sonnet'] }, supported: true },
  { name: 'am5 enforce sonnet[1m] entry', user: { availableModels: ['haiku', 'sonnet'], enforceAvailableModels: true }, supported: true },
  { name: 'am5 project wrong type', project: { availableModels: 'sonnet', model: 'haiku' }, supported: true },
  { name: 'am5 list w/ unknown', user: { availableModels: ['my-model', 'sonnet'] }, supported: true, setModels: ['my-model', 'other-model'] },
  { name: 'am5 enforce unknown first', user: { availableModels: ['my-model', 'sonnet'], enforceAvailableModels: true }, supported: true },
  { name: 'am5 opusplan best entries', user: { availableModels: ['opusplan', 'best'] }, supported: true, setModels: ['opusplan', 'best', 'sonnet'] },
  { name: 'am5 managed availableModelsMatch exact', managed: { availableModels: ['claude-sonnet-5'], availableModelsMatch: 'exact' }, supported: true, setModels: ['claude-sonnet-5-5'] },
  { name: 'dm managed opus', managed: { deniedModels: ['opus'] }, supported: true, setModels: ['opus', 'sonnet', 'claude-opus-4-6'] },
  { name: 'dm managed claude-opus-5-5', managed: { deniedModels: ['claude-opus-5-5'] }, supported: true, setModels: ['opus', 'claude-opus-5'] },
  { name: 'dm managed claude-opus-5', managed: { deniedModels: ['claude-opus-5'] }, supported: true, setModels: ['claude-opus-4-8'] },
  { name: 'dm user opus', user: { deniedModels: ['opus'] }, supported: true, setModels: ['opus'] },
  { name: 'small model webfetch haiku-override', tls: true, user: { skipWebFetchPreflight: true }, model: 'sonnet', env: { ANTHROPIC_DEFAULT_HAIKU_MODEL: 'my-haiku' }, rules: [{ when: { hasToolResults: false, requestIndex: 0 }, reply: { content: [{ type: 'tool_use', id: 'toolu_w', name: 'WebFetch', input: { url: '{{URL}}/page', prompt: 'summarise' } }], stopReason: 'tool_use' } }] },
  { name: 'small model webfetch skip', tls: true, model: 'sonnet', user: { skipWebFetchPreflight: true }, rules: [{ when: { hasToolResults: false, requestIndex: 0 }, reply: { content: [{ type: 'tool_use', id: 'toolu_w', name: 'WebFetch', input: { url: '{{URL}}/page', prompt: 'summarise' } }], stopReason: 'tool_use' } }] },
  { name: 'small model webfetch bedrock', tls: true, provider: 'bedrock', model: 'opus', user: { skipWebFetchPreflight: true }, rules: [{ when: { hasToolResults: false, requestIndex: 0 }, reply: { content: [{ type: 'tool_use', id: 'toolu_w', name: 'WebFetch', input: { url: '{{URL}}/page', prompt: 'summarise' } }], stopReason: 'tool_use' } }] },
  { name: 'small model webfetch override', tls: true, user: { skipWebFetchPreflight: true }, model: 'sonnet', env: { ANTHROPIC_SMALL_FAST_MODEL: 'haiku' }, rules: [{ when: { hasToolResults: false, requestIndex: 0 }, reply: { content: [{ type: 'tool_use', id: 'toolu_w', name: 'WebFetch', input: { url: '{{URL}}/page', prompt: 'summarise' } }], stopReason: 'tool_use' } }] },
];

function providerEnv(p: Provider, url: string): Record<string, string> {
  switch (p) {
    case 'first':
      return { ANTHROPIC_BASE_URL: url };
    case 'bedrock':
      return { CLAUDE_CODE_USE_BEDROCK: '1', CLAUDE_CODE_SKIP_BEDROCK_AUTH: '1', AWS_REGION: 'us-east-1', ANTHROPIC_BEDROCK_BASE_URL: url };
    case 'vertex':
      return { CLAUDE_CODE_USE_VERTEX: '1', CLAUDE_CODE_SKIP_VERTEX_AUTH: '1', CLOUD_ML_REGION: 'us-east5', ANTHROPIC_VERTEX_PROJECT_ID: 'p', ANTHROPIC_VERTEX_BASE_URL: `${url}/v1` };
    case 'foundry':
      return { CLAUDE_CODE_USE_FOUNDRY: '1', CLAUDE_CODE_SKIP_FOUNDRY_AUTH: '1', ANTHROPIC_FOUNDRY_BASE_URL: `${url}/anthropic` };
  }
}

const only = process.env['ONLY']?.split(',');
for (const v of variants.filter((x) => !only || only.some((o) => x.name.startsWith(o)))) {
  it(v.name, async () => {
    const cwd = realpathSync(tempDir('cc-model-'));
    const home = tempDir('cc-home-');
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    mkdirSync(join(home, '.claude'), { recursive: true });
    if (v.project) writeFileSync(join(cwd, '.claude/settings.json'), JSON.stringify(v.project));
    if (v.local) writeFileSync(join(cwd, '.claude/settings.local.json'), JSON.stringify(v.local));
    if (v.user) writeFileSync(join(home, '.claude/settings.json'), JSON.stringify(v.user));
    const provider = v.provider ?? 'first';
    const agentRules = v.agentModel
      ? [
          { when: { lastUserText: 'go', hasToolResults: false }, reply: { content: [{ type: 'tool_use' as const, id: 'toolu_a', name: 'Agent', input: { description: 'sub', prompt: 'subtask', subagent_type: 'general-purpose', model: v.agentModel } }], stopReason: 'tool_use' as const } },
        ]
      : [];
    const vars: Record<string, string> = {};
    const pki = v.tls ? makeTestPki() : undefined;
    const server = await startLoopbackServer(
      { rules: [...agentRules, ...(v.rules ?? []) as never[], { reply: { content: [{ type: 'text', text: 'ok' }] } }] },
      vars,
      { ...(provider === 'bedrock' ? { wire: 'bedrock' as const } : {}), ...(pki ? { tls: pki.server } : {}) },
    );
    vars['URL'] = server.url;
    const env: Record<string, string> = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'),
      ANTHROPIC_API_KEY: 'sk-test', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1', DISABLE_ERROR_REPORTING: '1', DISABLE_AUTOUPDATER: '1',
      ...providerEnv(provider, server.url), ...(pki ? { NODE_EXTRA_CA_CERTS: pki.caPath } : {}), ...v.env,
    };
    const out: string[] = [];
    const stderr: string[] = [];
    const turns = 1 + (v.setModels?.length ?? 0);
    let release: () => void = () => undefined;
    let sent = 0;
    async function* prompts(): AsyncGenerator<SDKUserMessage> {
      for (let i = 0; i < turns; i++) {
        yield { type: 'user', message: { role: 'user', content: i === 0 ? 'go' : `turn ${i}` }, parent_tool_use_id: null, session_id: '' };
        sent++;
        await new Promise<void>((r) => (release = r));
      }
    }
    try {
      const q = query({
        prompt: prompts(),
        options: {
          pathToClaudeCodeExecutable: CLAUDE, cwd, env,
          ...(v.model !== undefined ? { model: v.model } : {}),
          ...(v.fallback !== undefined ? { fallbackModel: v.fallback } : {}),
          ...(v.managed ? { managedSettings: v.managed } as object : {}),
          ...(v.extraArgs ? { extraArgs: v.extraArgs } : {}),
          ...(v.permissionMode ? { permissionMode: v.permissionMode } : {}),
          canUseTool: async (_n, input) => ({ behavior: 'allow', updatedInput: input }),
          stderr: (d) => stderr.push(d),
        },
      });
      if (v.supported) out.push(`supported=${JSON.stringify(await q.supportedModels())}`);
      let turn = 0;
      for await (const m of q) {
        if (m.type === 'system' && m.subtype === 'init') out.push(`init.model=${m.model}`);
        if (m.type === 'user' && process.env['SHOW_USER']) out.push(`user: ${JSON.stringify(m.message.content).slice(0, 300)}`);
        if (m.type === 'result') {
          out.push(`cost=${m.total_cost_usd} modelUsage=${JSON.stringify(m.modelUsage)}`);
          out.push(`result[${turn}] ${m.subtype} ${m.is_error ? JSON.stringify((m as { result?: string; errors?: string[] }).result ?? (m as { errors?: string[] }).errors) : ''} usage.models=${JSON.stringify(Object.keys(m.modelUsage ?? {}))}`);
          turn++;
          if (turn >= turns) break;
          const next = v.setModels?.[turn - 1];
          try {
            await q.setModel(next);
            out.push(`setModel(${next}) ok`);
          } catch (e) {
            out.push(`setModel(${next}) threw ${(e as Error).message}`);
          }
          release();
        }
      }
      void sent;
    } catch (e) {
      out.push(`threw ${(e as Error).message.slice(0, 300)}`);
    } finally {
      release();
      await server.close();
    }
    const reqs = server.requests.map((r) => `${r.body.model ?? '-'} path=${r.path}${process.env['SHOW_BETA'] ? ` beta=${String(r.headers['anthropic-beta'] ?? (r.body as { anthropic_beta?: unknown }).anthropic_beta ?? '')}` : /context-1m/.test(String(r.headers['anthropic-beta'] ?? (r.body as { anthropic_beta?: unknown }).anthropic_beta ?? '')) ? ' +1M' : ''}`);
    console.log(`### ${v.name}\n   ${[...out, ...reqs.map((r) => `req ${r}`), ...stderr.filter((s) => (process.env['ALL_STDERR'] ? true : /model|Model|availableModels/.test(s)) && !s.includes('unrecognized_model')).map((s) => `stderr ${s.slice(0, 300)}`)].join('\n   ')}`);
  }, 120_000);
}
