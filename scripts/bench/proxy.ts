// Warm turns through a proxy: the same trivial turn as warm-turn, with HTTP_PROXY pointing at a loopback CONNECT
// proxy (test/support/connect-proxy.ts, in the bench process). Measures what a proxied model call costs (undici's
// dispatcher and agentd's tunnel, src/net/) next to warm-turn's node:http fast path.
import { startConnectProxy } from '../../test/support/connect-proxy.js';
import { perSubject, place, start, using } from './session.js';
import { SHORT_REPLY } from './startup.js';
import { warmTurnRow } from './turns.js';
import { type Benchmark, rowBase } from './types.js';

export const warmTurnProxy: Benchmark = {
  name: 'warm-turn-proxy',
  description:
    'warm-turn with HTTP_PROXY set to a loopback CONNECT proxy: user frame written → `result` read, the model call tunnelled through the proxy (one CONNECT per kept-alive connection). Compare with warm-turn (no proxy: the node:http fast path).',
  async run(ctx) {
    const turns = ctx.quick ? 50 : 200;
    const subjects = ctx.subjects(['agentd']);
    const base = rowBase({ bench: 'warm-turn-proxy', metric: 'warm turn latency via CONNECT proxy', unit: 'ms', target: { op: '<=', value: 3 } });
    const proxy = await startConnectProxy();
    try {
      return await ctx.withLoopback(SHORT_REPLY, (server) =>
        perSubject(ctx, subjects, base, (s) =>
          using(start(s, place(ctx, 'warm-turn-proxy', s), { baseUrl: server.url, env: { HTTP_PROXY: proxy.url } }), async (p) => {
            const row = await warmTurnRow(p, base(s), turns);
            if (proxy.connects.length === 0) throw new Error('the proxy saw no CONNECT: the turns did not go through it');
            return row;
          }),
        ),
      );
    } finally {
      await proxy.close();
    }
  },
};
