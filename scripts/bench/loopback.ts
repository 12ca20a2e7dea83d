// The loopback Messages SSE server of the tests, run in a worker thread: serving 200k SSE events must not share
// an event loop with the stdout reader that is timing them. bench.mjs is one bundle, so the worker runs the same
// file and dispatches on `workerData.benchLoopback` (see serveLoopbackInWorker).
import { fileURLToPath } from 'node:url';
import { Worker, parentPort, workerData } from 'node:worker_threads';
import * as z from 'zod/mini';
import { type Scenario, parseScenario } from '../../src/model/scripted/scenario.js';
import { startLoopbackServer } from '../../test/support/loopback-server.js';

const WorkerData = z.object({ benchLoopback: z.object({ scenario: z.unknown() }) });
const FromWorker = z.union([
  z.object({ kind: z.literal('ready'), url: z.string() }),
  z.object({ kind: z.literal('stats'), requests: z.number(), outcomes: z.array(z.string()) }),
  z.object({ kind: z.literal('failed'), message: z.string() }),
]);
type FromWorker = z.infer<typeof FromWorker>;
const ToWorker = z.object({ kind: z.enum(['stats', 'close']) });

export interface LoopbackStats {
  requests: number;
  outcomes: string[];
}

export interface LoopbackHandle {
  url: string;
  stats(): Promise<LoopbackStats>;
  close(): Promise<void>;
}

/** True when this thread is a loopback worker (then serveLoopbackInWorker must run instead of the bench). */
export function isLoopbackWorker(): boolean {
  return parentPort !== null && WorkerData.safeParse(workerData).success;
}

export async function serveLoopbackInWorker(): Promise<void> {
  const port = parentPort;
  const data = WorkerData.safeParse(workerData);
  if (!port || !data.success) return;
  const parsed = parseScenario(data.data.benchLoopback.scenario);
  if (!parsed.ok) {
    port.postMessage({ kind: 'failed', message: parsed.message } satisfies FromWorker);
    return;
  }
  const server = await startLoopbackServer(parsed.scenario);
  port.on('message', (raw: unknown) => {
    const msg = ToWorker.safeParse(raw);
    if (!msg.success) return;
    if (msg.data.kind === 'stats') {
      const outcomes = server.requests.map((r) => r.outcome ?? 'pending');
      port.postMessage({ kind: 'stats', requests: server.requests.length, outcomes } satisfies FromWorker);
      return;
    }
    void server.close().then(() => port.close());
  });
  port.postMessage({ kind: 'ready', url: server.url } satisfies FromWorker);
}

/** Starts the loopback server for `scenario` in a worker thread of this very script. */
export async function startLoopbackInWorker(scenario: Scenario): Promise<LoopbackHandle> {
  const worker = new Worker(fileURLToPath(import.meta.url), { workerData: { benchLoopback: { scenario } } });
  const next = (): Promise<FromWorker> =>
    new Promise((resolve, reject) => {
      const onMessage = (raw: unknown): void => {
        cleanup();
        const m = FromWorker.safeParse(raw);
        if (m.success) resolve(m.data);
        else reject(new Error('loopback worker sent an unexpected message'));
      };
      const onError = (err: Error): void => {
        cleanup();
        reject(err);
      };
      const onExit = (code: number): void => {
        cleanup();
        reject(new Error(`loopback worker exited (${code})`));
      };
      const cleanup = (): void => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
    });
  const first = await next();
  if (first.kind !== 'ready') {
    await worker.terminate();
    throw new Error(first.kind === 'failed' ? `loopback scenario invalid: ${first.message}` : 'loopback worker did not start');
  }
  return {
    url: first.url,
    stats: async () => {
      const reply = next();
      worker.postMessage({ kind: 'stats' });
      const m = await reply;
      if (m.kind !== 'stats') throw new Error('loopback worker: expected stats');
      return { requests: m.requests, outcomes: m.outcomes };
    },
    close: async () => {
      const done = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      worker.postMessage({ kind: 'close' });
      const t = setTimeout(() => void worker.terminate(), 2000);
      await done;
      clearTimeout(t);
    },
  };
}
