// A stdio server that drops after it connected is dialled again with backoff (fake timers, a fake connection
// runtime): pending with the reason while it waits, connected again or failed with the drop's and the last
// attempt's reason; the host's reconnect and the session's end stop the redialling.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { McpRuntime } from '../../../src/mcp/hub.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { makeHub } from './support.js';

interface Fake {
  runtime: McpRuntime;
  /** Each dial's onClosed, in order (only dials that connected). */
  drops: Array<(reason: string) => void>;
  dials: () => number;
  /** What the next dials do: `ok` connects, any other string is the error it fails with. */
  next: string[];
}

function fakeRuntime(): Fake {
  let dials = 0;
  const f: Fake = {
    drops: [],
    dials: () => dials,
    next: [],
    runtime: {
      resourceTools: () => [],
      connectServer: async (_spec, d) => {
        dials++;
        const outcome = f.next.shift() ?? 'ok';
        if (outcome !== 'ok') throw new Error(outcome);
        f.drops.push((reason) => d.onClosed(reason));
        return { serverInfo: { name: 'fake', version: '1' }, tools: [], summaries: [], close: async () => undefined };
      },
    },
  };
  return f;
}

const spec = { kind: 'stdio' as const, name: 'fx', source: 'dynamic' as const, config: { command: 'fake-server' } };

beforeEach(() => {
  vi.useFakeTimers({ now: 0 });
});
afterEach(() => {
  vi.useRealTimers();
});

async function connected(f: Fake, over: Parameters<typeof makeHub>[1] = {}) {
  const hub = makeHub(new ToolRegistry([]), { load: async () => f.runtime, redialDelaysMs: [1000, 2000, 4000], ...over });
  hub.start();
  hub.add([spec]);
  await vi.advanceTimersByTimeAsync(0);
  expect(hub.initList()).toEqual([{ name: 'fx', status: 'connected', source: 'dynamic' }]);
  return hub;
}

const row = (status: string, error?: string) => [{ name: 'fx', status, source: 'dynamic', ...(error !== undefined ? { error } : {}) }];

describe('redialling a dropped stdio server', () => {
  it('pending while it waits 1 s, 2 s, 4 s; failed with the drop and the last error after three failed tries', async () => {
    const f = fakeRuntime();
    const hub = await connected(f);
    f.next.push('spawn ENOENT', 'exited with code 2', 'exited with code 3');
    f.drops[0]?.('exited with code 1; stderr: boom');
    expect(hub.initList()).toEqual(row('pending', 'disconnected: exited with code 1; stderr: boom; redialling (1 of 3)'));
    await vi.advanceTimersByTimeAsync(999);
    expect(f.dials()).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect([f.dials(), hub.initList()]).toEqual([2, row('pending', 'disconnected: exited with code 1; stderr: boom; redialling (2 of 3)')]);
    await vi.advanceTimersByTimeAsync(1999);
    expect(f.dials()).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect([f.dials(), hub.initList()[0]?.status]).toEqual([3, 'pending']);
    await vi.advanceTimersByTimeAsync(3999);
    expect(f.dials()).toBe(3);
    await vi.advanceTimersByTimeAsync(1);
    const failed = row('failed', 'disconnected: exited with code 1; stderr: boom; redialling failed (3 of 3), the last: exited with code 3');
    expect([f.dials(), hub.initList()]).toEqual([4, failed]);
    expect(hub.status()[0]).toMatchObject({ status: 'failed', error: failed[0]?.error });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(f.dials()).toBe(4);
  });

  it('connected again on a successful try (no stale error); a server that keeps dropping gets three redials in all, one that stayed up a minute three more', async () => {
    const f = fakeRuntime();
    const hub = await connected(f);
    f.drops[0]?.('exited with code 1');
    await vi.advanceTimersByTimeAsync(1000);
    expect([f.dials(), hub.initList()]).toEqual([2, row('connected')]);
    // Dropped again at once: the count goes on (2 of 3, after 2 s).
    f.drops[1]?.('exited with code 1');
    expect(hub.initList()).toEqual(row('pending', 'disconnected: exited with code 1; redialling (2 of 3)'));
    await vi.advanceTimersByTimeAsync(2000);
    f.drops[2]?.('exited with code 1');
    await vi.advanceTimersByTimeAsync(4000);
    expect([f.dials(), hub.initList()]).toEqual([4, row('connected')]);
    f.drops[3]?.('exited with code 9');
    expect(hub.initList()).toEqual(row('failed', 'disconnected: exited with code 9 (not redialled: 3 redials since it last stayed up; use mcp_reconnect)'));
    // The host's reconnect starts afresh.
    expect(await hub.reconnect('fx')).toBeUndefined();
    f.drops[4]?.('exited with code 1');
    expect(hub.initList()).toEqual(row('pending', 'disconnected: exited with code 1; redialling (1 of 3)'));
    await vi.advanceTimersByTimeAsync(1000);
    expect([f.dials(), hub.initList()]).toEqual([6, row('connected')]);
    // After a minute up, a drop is redialled from the first delay again (not 2 of 3).
    await vi.advanceTimersByTimeAsync(60_000);
    f.drops[5]?.('exited with code 1');
    expect(hub.initList()).toEqual(row('pending', 'disconnected: exited with code 1; redialling (1 of 3)'));
    await vi.advanceTimersByTimeAsync(1000);
    expect([f.dials(), hub.initList()]).toEqual([7, row('connected')]);
  });

  it("the host's reconnect during the wait takes over; the session's end stops it; [] turns redialling off", async () => {
    const f = fakeRuntime();
    const hub = await connected(f);
    f.drops[0]?.('exited with code 1');
    expect(await hub.reconnect('fx')).toBeUndefined();
    expect(f.dials()).toBe(2);
    await vi.advanceTimersByTimeAsync(10_000);
    expect([f.dials(), hub.initList()]).toEqual([2, row('connected')]);
    f.drops[1]?.('exited with code 1');
    await hub.close();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(f.dials()).toBe(2);

    const g = fakeRuntime();
    const off = await connected(g, { redialDelaysMs: [] });
    g.drops[0]?.('exited with code 1');
    expect(off.initList()).toEqual(row('failed', 'disconnected: exited with code 1'));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(g.dials()).toBe(1);
  });
});
