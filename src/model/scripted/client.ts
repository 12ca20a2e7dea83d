// The in-process scripted model: plays a scenario's plan with real (or fake) timers, honouring abort.
import { sleep } from '../../util/abort.js';
import type { ModelClient, ModelRequest, ModelStream, RawStreamEvent } from '../types.js';
import { ModelApiError, kindForStatus } from '../types.js';
import type { Plan, ScenarioEngine } from './engine.js';

export interface ScriptedClientOptions {
  /** Called with a deep copy of every request, e.g. to append it to a record file. */
  record?: (request: ModelRequest) => void;
}

function waitForAbort(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

export class ScriptedModelClient implements ModelClient {
  readonly provider = 'scripted';
  private count = 0;

  constructor(
    readonly engine: ScenarioEngine,
    private readonly opts: ScriptedClientOptions = {},
  ) {}

  async open(request: ModelRequest, signal: AbortSignal): Promise<ModelStream> {
    // Copy: the session keeps appending to its history arrays after the call.
    const req = structuredClone(request);
    this.opts.record?.(req);
    const plan = this.engine.plan(req);
    const requestId = `req_scripted_${++this.count}`;
    switch (plan.kind) {
      case 'error':
        if (plan.delayMs) await sleep(plan.delayMs, signal);
        throw new ModelApiError(kindForStatus(plan.status, plan.type, plan.message), plan.message, {
          status: plan.status,
          ...(plan.retryAfterSec !== undefined ? { retryAfterMs: plan.retryAfterSec * 1000 } : {}),
          requestId,
          apiType: plan.type,
        });
      case 'stall':
        return waitForAbort(signal);
      case 'stream':
        if (plan.firstTokenMs) await sleep(plan.firstTokenMs, signal);
        return { requestId, events: play(plan, signal) };
    }
  }
}

async function* play(plan: Extract<Plan, { kind: 'stream' }>, signal: AbortSignal): AsyncGenerator<RawStreamEvent> {
  for (const { delayMs, event } of plan.events) {
    if (delayMs > 0) await sleep(delayMs, signal);
    if (signal.aborted) throw signal.reason;
    if (event.type !== 'ping') yield event;
  }
  if (plan.end.kind === 'error') {
    throw new ModelApiError(kindForStatus(null, plan.end.type, plan.end.message), plan.end.message, { status: null, apiType: plan.end.type });
  }
  if (plan.end.kind === 'disconnect') {
    throw new ModelApiError('stream_interrupted', 'The response stream ended before message_stop (scripted disconnect).');
  }
}
