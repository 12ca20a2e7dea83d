// The trust store: the settings files agentd wrote for the host (cli/settings.ts persistUpdate), so a project or
// local file agentd wrote keeps its grants while nobody else changes it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where agentd records the settings files it wrote for the host (path → the exact content it wrote; the files are
 * small, and comparing text keeps node:crypto out of start-up).
 */
export function trustStorePath(configDir: string): string {
  return join(configDir, 'agentd', 'trusted-settings.json');
}

export function readTrustStore(path: string): Record<string, string> {
  try {
    const v: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

