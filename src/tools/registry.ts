// The set of tools a session offers. `--tools` picks the base set, and a whole-tool deny rule from any layer
// (`--disallowedTools Bash`, a policy's `permissions.deny: ["WebFetch"]`) keeps a tool out of it, whoever adds
// it (built-ins, MCP, Agent, Skill); the same list drives what the model sees, subagents included, and what
// system/init reports.
import * as z from 'zod/mini';
import type { ToolDefinition } from '../model/types.js';
import type { AnyTool } from './tool.js';
import { deepFreeze } from '../util/freeze.js';

export interface ToolRegistryOptions {
  /** Tools the session may never offer (whole-tool deny rules: permissions/match.ts withheldByDeny). */
  withheld?: (name: string) => boolean;
}

export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();
  private defs: ToolDefinition[] | undefined;
  private readonly withheldBy: (name: string) => boolean;

  constructor(tools: readonly AnyTool[], opts: ToolRegistryOptions = {}) {
    this.withheldBy = opts.withheld ?? (() => false);
    for (const t of tools) if (!this.withheldBy(t.name)) this.byName.set(t.name, t);
  }

  /** Adds (or replaces) a tool, e.g. StructuredOutput once a JSON schema is known; a withheld one is not added. */
  add(tool: AnyTool): void {
    if (this.withheldBy(tool.name)) return;
    this.byName.set(tool.name, tool);
    this.defs = undefined;
  }

  /** A deny rule keeps this tool out of the session (a call of it is answered as such, not as an unknown name). */
  withheld(name: string): boolean {
    return this.withheldBy(name);
  }

  remove(name: string): void {
    this.byName.delete(name);
    this.defs = undefined;
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  /**
   * API tool definitions, computed once (schemas do not change during a session) and frozen, so every request
   * reuses their JSON (model/request-body.ts). The schemas are copies: the tools' own objects stay unfrozen.
   */
  definitions(): ToolDefinition[] {
    this.defs ??= Object.freeze(
      [...this.byName.values()].map((t) =>
        deepFreeze({
          name: t.name,
          description: t.description,
          input_schema: structuredClone(t.inputJsonSchema ?? toApiSchema(t.inputSchema)),
        }),
      ),
    ) as ToolDefinition[];
    return this.defs;
  }
}


export function toApiSchema(schema: z.ZodMiniType): Record<string, unknown> {
  const js = z.toJSONSchema(schema, { target: 'draft-07', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  delete js['$schema'];
  return js;
}

export interface ToolSelection {
  /** `--tools`: undefined = default set; [] = no tools; "default" = default set. */
  base: readonly string[] | undefined;
}

/** The base set `--tools` picks (deny rules are the registry's `withheld`). */
export function selectTools(all: readonly AnyTool[], sel: ToolSelection): AnyTool[] {
  if (sel.base === undefined || (sel.base.length === 1 && sel.base[0] === 'default')) return [...all];
  const want = new Set(sel.base);
  return all.filter((t) => want.has(t.name));
}
