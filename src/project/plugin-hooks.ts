// A plugin's command hooks: `<plugin>/hooks/hooks.json`, `{"hooks": {<Event>: [{matcher?, hooks: [{type:
// "command", command, timeout?}]}]}}` (the settings file's shape, one level down). `${CLAUDE_PLUGIN_ROOT}` in a
// command is the plugin's folder. Handed to the hook runner as command hooks that cannot grant permissions: a
// plugin folder may sit in the repository, and nothing a project file says raises permissions.
import { join } from 'node:path';
import type { ProjectWarning } from './files.js';
import { readText } from './files.js';

export interface PluginCommandHook {
  event: string;
  matcher: string | undefined;
  command: string;
  timeoutSec: number | undefined;
  /** `plugin:<name>`. */
  source: string;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function loadPluginHooks(plugin: { name: string; path: string }, warnings: ProjectWarning[]): PluginCommandHook[] {
  const file = join(plugin.path, 'hooks', 'hooks.json');
  const text = readText(file);
  if (text === undefined) return [];
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    warnings.push({ file, message: `plugin hooks skipped: not valid JSON (${e instanceof Error ? e.message : String(e)})` });
    return [];
  }
  const hooks = isRecord(doc) ? doc['hooks'] : undefined;
  if (!isRecord(hooks)) {
    warnings.push({ file, message: 'plugin hooks skipped: no "hooks" object' });
    return [];
  }
  const out: PluginCommandHook[] = [];
  for (const [event, entries] of Object.entries(hooks)) {
    if (!Array.isArray(entries)) {
      warnings.push({ file, message: `plugin hooks for ${event} skipped: not a list of matchers` });
      continue;
    }
    for (const entry of entries) {
      if (!isRecord(entry) || !Array.isArray(entry['hooks'])) {
        warnings.push({ file, message: `a ${event} matcher skipped: it has no "hooks" list` });
        continue;
      }
      const matcher = typeof entry['matcher'] === 'string' ? entry['matcher'] : undefined;
      for (const h of entry['hooks']) {
        const type = isRecord(h) ? (h['type'] ?? 'command') : undefined;
        const command = isRecord(h) ? h['command'] : undefined;
        if (type !== 'command' || typeof command !== 'string' || command === '') {
          warnings.push({ file, message: `a ${event} hook skipped: only command hooks are supported` });
          continue;
        }
        // Substituted as text, so only a plain path is safe to put into a shell command.
        if (command.includes('${CLAUDE_PLUGIN_ROOT}') && !/^[\w./+-]+$/.test(plugin.path)) {
          warnings.push({ file, message: `a ${event} hook skipped: the plugin path has characters that are not safe in a command` });
          continue;
        }
        const timeout = isRecord(h) && typeof h['timeout'] === 'number' && h['timeout'] > 0 ? h['timeout'] : undefined;
        out.push({ event, matcher, command: command.replaceAll('${CLAUDE_PLUGIN_ROOT}', plugin.path), timeoutSec: timeout, source: `plugin:${plugin.name}` });
      }
    }
  }
  return out;
}
