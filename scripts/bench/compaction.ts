// The daemon's own time for a compaction of a 150k-token thread (issue 13: target ≤ 50 ms), the model call
// excluded: a model that answers at once stands in for it, but the request is serialised as the HTTP client would
// (that is the daemon's work), and the thread is replaced and recorded. In-process; agentd only.
import { compactThread } from '../../src/compaction/compact.js';
import { messageTokens as estimateTokens } from '../../src/model/token-estimate.js';
import type { ModelClient, ModelRequest, RawStreamEvent } from '../../src/model/types.js';
import { nullRecorder } from '../../src/thread/recorder.js';
import { Thread } from '../../src/thread/thread.js';
import { summarize } from './stats.js';
import type { Benchmark } from './types.js';

function bigThread(targetTokens: number): Thread {
  let n = 0;
  const t = new Thread({ recorder: nullRecorder, newUuid: () => `u${++n}` });
  t.appendUser('Please refactor the parser and keep the tests green.', { isSynthetic: false });
  const chunk = `${'const value = compute(input, options); // a line of source\n'.repeat(70)}`;
  for (let i = 0; estimateTokens(t.messages) < targetTokens; i++) {
    const id = `toolu_${i}`;
    t.appendRound([{ type: 'text', text: `Reading part ${i}.` }, { type: 'tool_use', id, name: 'Read', input: { file_path: `/w/src/part${i}.ts` } }], [
      { block: { type: 'tool_result', tool_use_id: id, content: chunk }, additionalContext: [] },
    ]);
  }
  return t;
}

/** Answers every request with one summary at once; records how long it spent serialising the request. */
function instantModel(): ModelClient & { serialiseMs: number } {
  const m = {
    provider: 'bench',
    serialiseMs: 0,
    async open(request: ModelRequest) {
      const t0 = performance.now();
      JSON.stringify(request);
      m.serialiseMs += performance.now() - t0;
      const events: RawStreamEvent[] = [
        { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: request.model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 150_000, output_tokens: 0 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '<summary>The parser was being refactored; parts 0-150 read.</summary>' } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 20 } },
        { type: 'message_stop' },
      ];
      return {
        requestId: undefined,
        events: (async function* () {
          for (const e of events) yield e;
        })(),
      };
    },
  };
  return m;
}

export const compaction150k: Benchmark = {
  name: 'compaction-150k',
  description: 'Compaction of a 150k-token thread (150 Read rounds): the daemon’s own time, the model answering at once (request serialisation included), in-process.',
  async run(ctx) {
    const times: number[] = [];
    for (let i = 0; i < (ctx.quick ? 5 : 20); i++) {
      const thread = bigThread(150_000);
      const model = instantModel();
      const ac = new AbortController();
      let k = 0;
      const t0 = performance.now();
      const r = await compactThread({
        // The session sends this request through its model-call path; here the instant model answers it directly.
        ask: async (request) => {
          const stream = await model.open(request, ac.signal);
          let text = '';
          for await (const ev of stream.events) if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') text += ev.delta.text;
          return { kind: 'answered', text };
        },
        modelId: 'claude-sonnet-4-5',
        thread,
        system: [{ type: 'text', text: 'You are an agent.' }],
        tools: [],
        trigger: 'auto',
        next: 'work',
        customInstructions: undefined,
        contextWindow: 200_000,
        preTokens: 150_000,
        transcriptPath: '/t/s.jsonl',
        hooks: { preCompact: async () => ({}), postCompact: async () => undefined },
        emit: () => undefined,
        now: () => performance.now(),
        newUuid: () => `c${++k}`,
        signal: ac.signal,
      });
      const ms = performance.now() - t0;
      if (r.kind !== 'compacted' || thread.length !== 1) throw new Error(`compaction did not happen: ${JSON.stringify(r)}`);
      times.push(ms);
    }
    const st = summarize(times.slice(1));
    return [{ bench: 'compaction-150k', metric: 'compaction of a 150k-token thread, model excluded', subject: 'agentd', unit: 'ms', n: st.n, nLabel: 'runs', median: st.median, p90: st.p90, target: { op: '<=', value: 50 } }];
  },
};
