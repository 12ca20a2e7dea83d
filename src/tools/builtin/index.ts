// The built-in tools, in the order the model sees them.
import type { AnyTool } from '../tool.js';

export function builtinTools(): AnyTool[] {
  return [];
}
