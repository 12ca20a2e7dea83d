// Custom slash commands: `.claude/commands/**/*.md` (project, user) and a plugin's `commands/`. A subfolder
// namespaces a command as Claude Code does (`sub/deep.md` is `/sub:deep`); a plugin's commands are
// `plugin:name`. Frontmatter: description, argument-hint, allowed-tools, model, disable-model-invocation.
import { type FrontmatterValue, parseFrontmatter, stringList, stringValue } from './frontmatter.js';
import { type Confinement, type ProjectSource, type ProjectWarning, type ScanRoot, confinedMarkdownFiles, firstLine, readText } from './files.js';

/** What a command file and a SKILL.md share: the frontmatter keys both take, and where the file came from. */
export interface InvocableFrontmatter {
  readonly name: string;
  readonly description: string;
  readonly argumentHint: string;
  /** Rules for the `!` shell lines (they still go through the permission engine; they grant nothing). */
  readonly allowedTools: readonly string[];
  readonly model: string | undefined;
  /** The model may not run it through the Skill tool. */
  readonly disableModelInvocation: boolean;
  readonly file: string;
  readonly source: ProjectSource;
}

export interface CustomCommand extends InvocableFrontmatter {
  readonly kind: 'command';
  readonly body: string;
}

export function describeSource(source: ProjectSource, namespace: string | undefined): string {
  return source === 'plugin' ? `(plugin:${namespace ?? ''})` : `(${source})`;
}

/**
 * `commands` directories of the roots; `root.dir` is the `.claude` (or plugin) folder. A project's command that
 * leads out of the repository (a link) is skipped (files.ts Confinement).
 */
export function loadCommands(roots: readonly ScanRoot[], warnings: ProjectWarning[], confine?: Confinement): CustomCommand[] {
  const out: CustomCommand[] = [];
  for (const root of roots) {
    for (const { file, segments } of confinedMarkdownFiles(root, 'commands', confine, warnings, 'command')) {
      const text = readText(file);
      if (text === undefined) {
        warnings.push({ file, message: 'unreadable command file skipped' });
        continue;
      }
      const fm = parseFrontmatter(text);
      if (!fm.ok) {
        warnings.push({ file, message: `command skipped: broken frontmatter (${fm.error})` });
        continue;
      }
      const name = [...(root.namespace ? [root.namespace] : []), ...segments].join(':');
      out.push(commandFrom(name, fm.data, fm.body, file, root));
    }
  }
  return out;
}

function commandFrom(name: string, data: Readonly<Record<string, FrontmatterValue>>, body: string, file: string, root: ScanRoot): CustomCommand {
  const description = stringValue(data['description']) ?? firstLine(body);
  return {
    kind: 'command',
    name,
    description: `${description} ${describeSource(root.source, root.namespace)}`.trim(),
    argumentHint: stringValue(data['argument-hint']) ?? '',
    allowedTools: stringList(data['allowed-tools']) ?? [],
    model: stringValue(data['model']),
    disableModelInvocation: data['disable-model-invocation'] === true,
    body,
    file,
    source: root.source,
  };
}
