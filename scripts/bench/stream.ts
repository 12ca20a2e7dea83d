// Partial-message throughput: one reply whose text is streamed as very many tiny deltas, with
// --include-partial-messages; stream_event frames read from stdout per second, from the first to the last one.
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Scenario } from '../../src/model/scripted/scenario.js';
import { initialize, perSubject, place, start, turn, using } from './session.js';
import { summarize } from './stats.js';
import type { Subject } from './subjects.js';
import { type Benchmark, type Row, agentdTarget } from './types.js';

const CHUNK = 2;
const TRIGGER = 'bench-stream';

/** Deterministic prose with quotes, backslashes and newlines, so JSON escaping is on the measured path. */
export function benchText(chars: number): string {
  const words = ['delta', 'stream', 'frame', 'agent', '"quoted"', 'json', 'C:\\path', 'token', 'model', 'byte'];
  const parts: string[] = [];
  let len = 0;
  let seed = 7;
  while (len < chars) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const w = words[seed % words.length] ?? 'x';
    const sep = seed % 13 === 0 ? '\n' : ' ';
    parts.push(w, sep);
    len += w.length + 1;
  }
  return parts.join('').slice(0, chars);
}

export function streamScenario(deltas: number): Scenario {
  return {
    description: `bench: ${deltas} text deltas of ${CHUNK} characters`,
    rules: [
      {
        name: 'stream',
        when: { lastUserText: TRIGGER },
        reply: { content: [{ type: 'text', text: benchText(deltas * CHUNK) }], chunkSize: CHUNK },
      },
    ],
    fallback: { content: [{ type: 'text', text: 'ok' }] },
  };
}

/**
 * The loopback server alone, read by a bare HTTP client (SSE events counted as blank-line separators): shows the
 * server can feed more than the daemons consume, so the loopback rows measure the daemon, not the server.
 */
function rawSse(url: string): Promise<{ events: number; rate: number }> {
  const body = JSON.stringify({ model: 'bench', max_tokens: 1, stream: true, messages: [{ role: 'user', content: TRIGGER }] });
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        reject(new Error(`loopback server answered ${String(res.statusCode)}`));
        return;
      }
      let events = 0;
      let first = 0;
      let last = 0;
      let prevEndsWithNl = false;
      res.on('data', (c: Buffer) => {
        const now = performance.now();
        let k = prevEndsWithNl && c[0] === 0x0a ? 1 : 0;
        for (let i = c.indexOf('\n\n'); i >= 0; i = c.indexOf('\n\n', i + 2)) k++;
        prevEndsWithNl = c[c.length - 1] === 0x0a;
        if (k === 0) return;
        if (events === 0) first = now;
        events += k;
        last = now;
      });
      res.on('end', () => resolve({ events, rate: events / ((last - first) / 1000) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

export const streamThroughput: Benchmark = {
  name: 'stream-throughput',
  description: `--include-partial-messages; one reply of N text deltas (${CHUNK} characters each, after one warm-up turn); stream_event frames / (last − first stream_event arrival).`,
  async run(ctx) {
    const deltas = ctx.quick ? 50_000 : 200_000;
    const runs = ctx.quick || ctx.profiling ? 1 : 3;
    const scenario = streamScenario(deltas);
    const scenarioFile = join(ctx.dir('stream-scenario-'), 'stream.json');
    writeFileSync(scenarioFile, JSON.stringify(scenario));
    const subjects = ctx.subjects(['agentd', 'agentd-scripted', 'claude']);
    const base = (s: Subject): Omit<Row, 'n' | 'median' | 'failed'> => ({
      bench: 'stream-throughput',
      metric: `stream_event throughput (${deltas / 1000}k deltas)`,
      subject: s.label,
      unit: 'frames/s',
      ...agentdTarget(s, '>=', 250_000),
    });
    return ctx.withLoopback(scenario, async (server) => {
      const raw: number[] = [];
      let rawEvents = 0;
      for (let i = 0; i < runs; i++) {
        const r = await rawSse(server.url);
        rawEvents = r.events;
        raw.push(r.rate);
      }
      const rawRow: Row = {
        bench: 'stream-throughput',
        metric: `SSE events/s (${deltas / 1000}k deltas)`,
        subject: 'loopback server alone (bare HTTP client)',
        unit: 'events/s',
        n: raw.length,
        nLabel: 'runs',
        median: summarize(raw).median,
        note: `${rawEvents} events a run`,
      };
      const rows = await perSubject(ctx, subjects, base, async (s) => {
        const where = place(ctx, 'stream', s);
        const rates: number[] = [];
        let frames = 0;
        for (let i = 0; i < runs; i++) {
          const opts = { extraArgs: ['--include-partial-messages'], ...(s.usesLoopback ? { baseUrl: server.url } : { scenarioFile }) };
          const one = await using(start(s, where, opts), async (p) => {
            await initialize(p);
            await turn(p, 'warm up');
            p.resetStreamCounters();
            await turn(p, `${TRIGGER} please`, 300_000);
            // message_start, content_block_start, the deltas, content_block_stop, message_delta, message_stop.
            if (p.streamEvents < deltas) throw new Error(`only ${p.streamEvents} stream_event frames for ${deltas} deltas`);
            return { frames: p.streamEvents, rate: p.streamEvents / ((p.lastStreamAt - p.firstStreamAt) / 1000) };
          });
          frames = one.frames;
          rates.push(one.rate);
          ctx.log(`    run ${i + 1}: ${Math.round(one.rate).toLocaleString('en-US')} frames/s`);
        }
        const st = summarize(rates);
        return { ...base(s), n: st.n, nLabel: 'runs', median: st.median, note: `${frames} frames a run` };
      });
      return [rawRow, ...rows];
    });
  },
};
