// The transcript's usage entry (src/store/entries.ts) repeats the protocol's ModelUsageEntry, because the core
// does not import the wire package; this keeps the two in step: the same fields, each one required by the store.
import { describe, expect, it } from 'vitest';
import { ModelUsageEntry } from '../../protocol/src/index.js';
import { USAGE_ENTRY_TYPE, UsageEntryIn } from '../../src/store/entries.js';

const totals = Object.fromEntries(Object.keys(ModelUsageEntry._zod.innerType.shape).map((k) => [k, k === 'costBasis' ? 'table' : 1]));
const entry = (t: Record<string, unknown>): unknown => ({ type: USAGE_ENTRY_TYPE, modelUsage: { 'claude-opus-5-5': t } });

describe('the transcript usage entry and ModelUsageEntry agree', () => {
  it('a complete wire entry is a valid transcript entry', () => {
    expect(ModelUsageEntry.safeParse(totals).success).toBe(true);
    expect(UsageEntryIn.safeParse(entry(totals)).success).toBe(true);
  });

  for (const key of Object.keys(ModelUsageEntry._zod.innerType.shape)) {
    it(`the store requires ${key}`, () => {
      const { [key]: _dropped, ...rest } = totals;
      expect(UsageEntryIn.safeParse(entry(rest)).success).toBe(false);
    });
  }
});
