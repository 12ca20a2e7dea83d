// Subagent definitions from every source, merged by name: built-in < plugin < user < project < --agents <
// initialize.agents (a later source overrides an earlier one, as in Claude Code). Consumed by the Agent tool
// (src/agents); listed in the initialize response. Bad input never stops the session: a file with broken
// frontmatter or without name/description is skipped, an unknown tool name is dropped, each with a warning.
import { BUILTIN_AGENTS } from '../agents/builtin.js';
import type { AgentDefinition, AgentSource } from '../agents/types.js';
import { type FrontmatterValue, parseFrontmatter, stringList, stringValue } from './frontmatter.js';
import { type Confinement, type ProjectWarning, type ScanRoot, confinedMarkdownFiles, readText } from './files.js';

export interface AgentLoadInput {
  /** `.claude` folders (project, user) and plugin folders, already gated by settingSources. */
  roots: readonly ScanRoot[];
  /** The `--agents` flag's JSON text, if given. */
  flagJson: string | undefined;
  /** `initialize.agents` (the SDK's `agents` option), unparsed. */
  sdkAgents: Readonly<Record<string, unknown>> | undefined;
  /** Whether a tool name exists (built-in names; `mcp__…` names are accepted as they connect later). */
  isKnownTool: (name: string) => boolean;
  /** Where a project's agent files may lead (files.ts); absent: not checked. */
  confine?: Confinement;
}

/** The built-in agents every session has (src/agents/builtin.ts: agentd's own prompt, not Claude Code's). */
export const BUILT_IN_AGENTS: readonly AgentDefinition[] = BUILTIN_AGENTS;

const NAME_RE = /^[A-Za-z0-9][\w.:-]*$/;

export function loadAgentDefinitions(input: AgentLoadInput, warnings: ProjectWarning[]): AgentDefinition[] {
  const byName = new Map<string, AgentDefinition>();
  for (const a of BUILT_IN_AGENTS) byName.set(a.name, a);
  // Plugins first, then user, then project: the roots list is in any order, the source decides precedence.
  const order: Record<ScanRoot['source'], number> = { plugin: 0, user: 1, project: 2 };
  for (const root of [...input.roots].sort((a, b) => order[a.source] - order[b.source])) {
    for (const { file, segments } of confinedMarkdownFiles(root, 'agents', input.confine, warnings, 'agent')) {
      const def = fromFile(file, segments, root, input.isKnownTool, warnings);
      if (def) byName.set(def.name, def);
    }
  }
  if (input.flagJson !== undefined && input.flagJson.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(input.flagJson);
    } catch (e) {
      warnings.push({ file: '--agents', message: `not valid JSON, ignored: ${e instanceof Error ? e.message : String(e)}` });
    }
    if (parsed !== undefined) for (const d of fromRecord(parsed, 'flag', '--agents', input.isKnownTool, warnings)) byName.set(d.name, d);
  }
  if (input.sdkAgents) for (const d of fromRecord(input.sdkAgents, 'sdk', 'initialize.agents', input.isKnownTool, warnings)) byName.set(d.name, d);
  return [...byName.values()];
}

function fromFile(file: string, segments: string[], root: ScanRoot, isKnownTool: (n: string) => boolean, warnings: ProjectWarning[]): AgentDefinition | undefined {
  const text = readText(file);
  if (text === undefined) {
    warnings.push({ file, message: 'unreadable agent file skipped' });
    return undefined;
  }
  const fm = parseFrontmatter(text);
  if (!fm.ok) {
    warnings.push({ file, message: `agent skipped: broken frontmatter (${fm.error})` });
    return undefined;
  }
  if (!fm.hasFrontmatter) {
    warnings.push({ file, message: 'agent skipped: no frontmatter (name and description are required)' });
    return undefined;
  }
  const bare = stringValue(fm.data['name'])?.trim() ?? segments.join(':');
  const name = root.namespace ? `${root.namespace}:${bare}` : bare;
  const source: AgentSource = root.source;
  return build(name, fm.data, fm.body.trim(), source, file, isKnownTool, warnings);
}

function fromRecord(value: unknown, source: AgentSource, where: string, isKnownTool: (n: string) => boolean, warnings: ProjectWarning[]): AgentDefinition[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    warnings.push({ file: where, message: 'agents must be an object keyed by agent name; ignored' });
    return [];
  }
  const out: AgentDefinition[] = [];
  for (const [name, raw] of Object.entries(value)) {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      warnings.push({ file: where, message: `agent "${name}" skipped: its definition is not an object` });
      continue;
    }
    const data: Record<string, FrontmatterValue> = {};
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null) data[k] = v;
      else if (Array.isArray(v) && v.every((x): x is string => typeof x === 'string')) data[k] = v;
    }
    const prompt = typeof data['prompt'] === 'string' ? data['prompt'] : '';
    const def = build(name, data, prompt, source, where, isKnownTool, warnings);
    if (def) out.push({ ...def, file: undefined });
  }
  return out;
}

function build(
  name: string,
  data: Readonly<Record<string, FrontmatterValue>>,
  prompt: string,
  source: AgentSource,
  file: string,
  isKnownTool: (n: string) => boolean,
  warnings: ProjectWarning[],
): AgentDefinition | undefined {
  const label = `agent "${name}"`;
  if (!NAME_RE.test(name)) {
    warnings.push({ file, message: `${label} skipped: not a valid agent name` });
    return undefined;
  }
  const description = stringValue(data['description'])?.trim();
  if (!description) {
    warnings.push({ file, message: `${label} skipped: it has no description` });
    return undefined;
  }
  if (!prompt.trim()) {
    warnings.push({ file, message: `${label} skipped: it has no prompt` });
    return undefined;
  }
  const known = (list: string[] | undefined, field: string): string[] | undefined => {
    if (list === undefined) return undefined;
    return list.filter((t) => {
      const base = t.replace(/\(.*\)$/s, '');
      if (base === '*' || isKnownTool(base) || base.startsWith('mcp__')) return true;
      warnings.push({ file, message: `${label}: unknown tool "${t}" in ${field} dropped` });
      return false;
    });
  };
  const tools = known(stringList(data['tools']), 'tools');
  const maxTurns = data['maxTurns'] ?? data['max-turns'];
  return {
    name,
    description,
    prompt,
    // `tools: ['*']` or none: the parent's tools.
    tools: tools === undefined || tools.includes('*') ? undefined : tools,
    disallowedTools: known(stringList(data['disallowedTools'] ?? data['disallowed-tools']), 'disallowedTools') ?? [],
    model: stringValue(data['model'])?.trim() || undefined,
    maxTurns: typeof maxTurns === 'number' && Number.isInteger(maxTurns) && maxTurns > 0 ? maxTurns : undefined,
    background: data['background'] === true,
    skills: stringList(data['skills']) ?? [],
    source,
    file,
  };
}
