// The set of tools a session offers. `--tools` picks the base set, `--disallowedTools` bare names remove
// tools from it; the same list drives what the model sees and what system/init reports.
import * as z from 'zod/mini';
import type { ToolDefinition } from '../model/types.js';
import type { AnyTool } from './tool.js';
import { deepFreeze } from '../util/freeze.js';

export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();
  private defs: ToolDefinition[] | undefined;

  constructor(tools: readonly AnyTool[]) {
    for (const t of tools) this.byName.set(t.name, t);
  }

  /** Adds (or replaces) a tool, e.g. StructuredOutput once a JSON schema is known. */
  add(tool: AnyTool): void {
    this.byName.set(tool.name, tool);
    this.defs = undefined;
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
  /** Bare names from `--disallowedTools` (rules with a specifier do not remove the tool). */
  removed: readonly string[];
}

export function selectTools(all: readonly AnyTool[], sel: ToolSelection): AnyTool[] {
  let chosen: AnyTool[];
  if (sel.base === undefined || (sel.base.length === 1 && sel.base[0] === 'default')) chosen = [...all];
  else {
    const want = new Set(sel.base);
    chosen = all.filter((t) => want.has(t.name));
  }
  const removed = new Set(sel.removed);
  return chosen.filter((t) => !removed.has(t.name));
}
