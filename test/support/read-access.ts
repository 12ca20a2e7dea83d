// The permission engine's Read decision for tests of code that reads files on the model's behalf (memory-file and
// command `@imports`): a real permission layer over the given rules, nobody to ask.
import { silentLogger } from '../../src/log/logger.js';
import { type ReadAccess, createPermissionLayer } from '../../src/permissions/layer.js';
import type { CommandAnalyzer } from '../../src/permissions/match.js';
import { RuleSet, rulesFrom } from '../../src/permissions/rules.js';
import { fixedUpdateTarget } from '../../src/permissions/updates.js';

const analyzer: CommandAnalyzer = { analyze: async () => ({ ok: false, segments: [], readOnly: false, reasons: ['not analysed in this test'], opaque: true }) };

export function engineReadAccess(o: { cwd: string; deny?: readonly string[]; allow?: readonly string[]; additionalDirectories?: readonly string[] }): (path: string, importer?: 'user' | 'repository') => Promise<ReadAccess> {
  const rules = new RuleSet();
  rules.add(rulesFrom(o.deny ?? [], 'deny', 'projectSettings', o.cwd));
  rules.add(rulesFrom(o.allow ?? [], 'allow', 'userSettings', o.cwd));
  const layer = createPermissionLayer({ rules, getMode: () => 'default', analyzer, prompter: undefined, updates: fixedUpdateTarget(rules, o.cwd), logger: silentLogger(), projectDir: o.cwd });
  return (path, importer = 'repository') => layer.readAccess(path, { cwd: o.cwd, additionalDirectories: [...(o.additionalDirectories ?? [])] }, { allowRules: importer === 'user' });
}
