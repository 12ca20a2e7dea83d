// The hooks layer validates hook answers with its own schema (the core does not import the wire package);
// this keeps it in step with the protocol's HookJSONOutput: every accepted wire fixture is accepted by both.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HookJSONOutput } from '../../protocol/src/index.js';
import { parseHookOutput } from '../../src/hooks/output.js';
import { ROOT } from '../support/daemon.js';

const dir = join(ROOT, 'protocol/fixtures/accept/HookJSONOutput');
const fixtures = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('HookJSONOutput and the hooks layer agree', () => {
  it('has fixtures', () => {
    expect(fixtures.length).toBeGreaterThan(0);
  });
  for (const f of fixtures) {
    it(f, () => {
      const v: unknown = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      expect(HookJSONOutput.safeParse(v).success).toBe(true);
      expect(parseHookOutput(v).ok).toBe(true);
    });
  }
  it('both reject the same garbage', () => {
    for (const bad of [{ decision: 'maybe' }, { continue: 'yes' }, { hookSpecificOutput: { permissionDecision: 'perhaps' } }, { systemMessage: 3 }]) {
      expect([HookJSONOutput.safeParse(bad).success, parseHookOutput(bad).ok]).toEqual([false, false]);
    }
  });
});
