// The model tools ask on the model's behalf (WebFetch answers its `prompt` over the fetched page; WebSearch runs
// the server-side search). Which model, as Claude Code 2.1.330 picks it with an API key (measured,
// test/measure/model-aliases.measure.ts): ANTHROPIC_SMALL_FAST_MODEL, else ANTHROPIC_DEFAULT_HAIKU_MODEL, each sent
// as typed (`haiku` there is sent as `haiku`), else the session's own model at the time of the call. Its usage
// counts in the session's totals like any other call. The scripted model answers these requests too (its rules
// can match them by `model` or `system`).
import type { ModelClient, Usage } from '../model/types.js';
import { MessageAccumulator } from '../session/accumulator.js';
import type { SideModel } from '../tools/tool.js';
import { readEnv } from '../config/env.js';

/** The side model's id: the environment's small, fast model, else `mainModel`. */
export function smallFastModelId(env: Readonly<Record<string, string | undefined>>, mainModel: string): string {
  return readEnv(env).smallFastModel ?? mainModel;
}

export function createSideModel(model: ModelClient, env: Readonly<Record<string, string | undefined>>, recordUsage: (model: string, usage: Usage) => void, mainModel: () => string): SideModel {
  const idNow = (): string => smallFastModelId(env, mainModel());
  const complete: SideModel['complete'] = async (req) => {
    const id = idNow();
    const stream = await model.open(
      { model: id, max_tokens: req.maxTokens, system: [{ type: 'text', text: req.system }], messages: [{ role: 'user', content: req.prompt }], ...(req.tools ? { tools: req.tools } : {}) },
      req.signal,
    );
    const acc = new MessageAccumulator();
    for await (const ev of stream.events) acc.push(ev);
    recordUsage(id, acc.usage);
    return acc.completedBlocks();
  };
  return {
    get model() {
      return idNow();
    },
    complete,
    async ask(req) {
      return (await complete(req))
        .flatMap((b) => (b.type === 'text' ? [b.text] : []))
        .join('')
        .trim();
    },
  };
}
