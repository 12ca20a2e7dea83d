// Loads a scenario: `builtin:<name>` or a JSON file path.
import { readFileSync } from 'node:fs';
import { BUILTIN_SCENARIOS, DEFAULT_SCENARIO } from './builtin.js';
import { type Scenario, parseScenario } from './scenario.js';

export function loadScenario(spec: string | undefined): { ok: true; scenario: Scenario } | { ok: false; message: string } {
  const name = spec === undefined || spec === '' ? `builtin:${DEFAULT_SCENARIO}` : spec;
  if (name.startsWith('builtin:')) {
    const s = BUILTIN_SCENARIOS[name.slice('builtin:'.length)];
    return s ? { ok: true, scenario: s } : { ok: false, message: `Unknown built-in scenario ${name} (have: ${Object.keys(BUILTIN_SCENARIOS).join(', ')}).` };
  }
  let text: string;
  try {
    text = readFileSync(name, 'utf8');
  } catch (e) {
    return { ok: false, message: `Cannot read scenario ${name}: ${e instanceof Error ? e.message : String(e)}` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `Scenario ${name} is not valid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  const r = parseScenario(value);
  return r.ok ? r : { ok: false, message: `Scenario ${name} is invalid: ${r.message}` };
}
