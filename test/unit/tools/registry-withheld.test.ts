// A whole-tool deny rule keeps a tool out of the session's registry, from every layer and whoever adds the tool;
// a rule with a specifier, or one naming a tool that covers others (Edit, Read), takes only what it names.
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { withheldByDeny } from '../../../src/permissions/match.js';
import { type PermissionRule, rulesFrom } from '../../../src/permissions/rules.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import type { AnyTool } from '../../../src/tools/tool.js';

function tool(name: string): AnyTool {
  return { name, description: `${name} tool`, inputSchema: z.object({}), isConcurrencySafe: () => true, isReadOnly: () => true, interruptBehavior: 'cancel', call: async () => ({ data: null, content: '' }) };
}

const NAMES = ['Bash', 'Read', 'Glob', 'Edit', 'Write', 'WebFetch', 'Agent', 'mcp__srv__a', 'mcp__srv__b', 'mcp__other__c'];

const rules: PermissionRule[] = [
  ...rulesFrom(['Bash'], 'deny', 'policySettings', '/p'),
  ...rulesFrom(['WebFetch(*)'], 'deny', 'userSettings', '/p'),
  ...rulesFrom(['Read(./secret/**)', 'Edit'], 'deny', 'projectSettings', '/p'),
  ...rulesFrom(['mcp__srv'], 'deny', 'cliArg', '/p'),
  ...rulesFrom(['Write', 'Glob'], 'allow', 'userSettings', '/p'),
  ...rulesFrom(['Agent'], 'ask', 'localSettings', '/p'),
];

describe('withheld tools', () => {
  it('leaves out what a whole-tool deny names, from the start and when added later; answers withheld() for them', () => {
    const reg = new ToolRegistry(NAMES.slice(0, 5).map(tool), { withheld: withheldByDeny(rules) });
    for (const n of NAMES.slice(5)) reg.add(tool(n));
    reg.add(tool('Bash'));
    expect(reg.names()).toEqual(['Read', 'Glob', 'Write', 'Agent', 'mcp__other__c']);
    expect(reg.definitions()).toEqual(['Read', 'Glob', 'Write', 'Agent', 'mcp__other__c'].map((name) => ({ name, description: `${name} tool`, input_schema: { type: 'object', properties: {} } })));
    expect(NAMES.map((n) => [n, reg.withheld(n), reg.get(n)?.name])).toEqual([
      ['Bash', true, undefined],
      ['Read', false, 'Read'],
      ['Glob', false, 'Glob'],
      ['Edit', true, undefined],
      ['Write', false, 'Write'],
      ['WebFetch', true, undefined],
      ['Agent', false, 'Agent'],
      ['mcp__srv__a', true, undefined],
      ['mcp__srv__b', true, undefined],
      ['mcp__other__c', false, 'mcp__other__c'],
    ]);
  });

  it('without deny rules, withholds nothing', () => {
    const reg = new ToolRegistry(NAMES.map(tool));
    expect(reg.names()).toEqual(NAMES);
    expect(reg.withheld('Bash')).toBe(false);
  });
});
