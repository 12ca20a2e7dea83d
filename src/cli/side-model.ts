// The small, fast model tools ask on the model's behalf (WebFetch answers its `prompt` over the fetched page,
// as Claude Code does with Haiku). The model id: ANTHROPIC_SMALL_FAST_MODEL, else ANTHROPIC_DEFAULT_HAIKU_MODEL,
// else claude-haiku-4-5. Its usage counts in the session's totals like any other call. The scripted model
// answers these requests too (its rules can match them by `model` or `system`).
import type { ModelClient, Usage } from '../model/types.js';
import { MessageAccumulator } from '../session/accumulator.js';
import type { SideModel } from '../tools/tool.js';
import { readEnv } from '../config/env.js';

export const DEFAULT_SMALL_FAST_MODEL = 'claude-haiku-4-5';

export function smallFastModelId(env: Readonly<Record<string, string | undefined>>): string {
  return readEnv(env).smallFastModel ?? DEFAULT_SMALL_FAST_MODEL;
}

export function createSideModel(model: ModelClient, env: Readonly<Record<string, string | undefined>>, recordUsage: (model: string, usage: Usage) => void): SideModel {
  const id = smallFastModelId(env);
  const complete: SideModel['complete'] = async (req) => {
    const stream = await model.open(
      { model: id, max_tokens: req.maxTokens, system: [{ type: 'text', text: req.system }], messages: [{ role: 'user', content: req.prompt }], ...(req.tools ? { tools: req.tools } : {}) },
      req.signal,
    );
    const acc = new MessageAccumulator();
    for await (const ev of stream.events) acc.push(ev);
    recordUsage(acc.model ?? id, acc.usage);
    return acc.completedBlocks();
  };
  return {
    model: id,
    complete,
    async ask(req) {
      return (await complete(req))
        .flatMap((b) => (b.type === 'text' ? [b.text] : []))
        .join('')
        .trim();
    },
  };
}
