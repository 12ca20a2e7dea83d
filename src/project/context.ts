// What the project tells the agent, for one session: memory files, output style, environment facts, nested
// CLAUDE.md files, `@file` mentions. Memory files load asynchronously once `start()` is called (after the
// `initialize` answer: they never delay it) and before the first model request (the session waits on
// `loaded`). Problems with a file are reported through `onProblem` once each and the file is skipped or cut.
import type { PostToolUseResult, ToolCallInfo, ToolHooks } from '../executor/pipeline.js';
import type { PromptContextPort } from '../session/config.js';
import type { PromptEnvironment, PromptExtras } from '../session/system-prompt.js';
import { isGitRepository, osVersion } from './environment.js';
import { Confinement } from './files.js';
import { MAX_MEMORY_FILE_BYTES, type MemoryFile, type SettingSource, loadMemoryFiles, memoryReminder } from './memory.js';
import { mentionReminders } from './mentions.js';
import { NestedMemory } from './nested-memory.js';
import { DEFAULT_OUTPUT_STYLE, type OutputStyle, findStyle, loadOutputStyles } from './output-styles.js';
import type { ProjectProblem } from './problems.js';

export interface ProjectContextOptions {
  cwd: string;
  configDir: string;
  homeDir: string;
  sources: readonly SettingSource[];
  additionalDirectories: () => readonly string[];
  /** The settings' `outputStyle`, if any. */
  outputStyle: string | undefined;
  onProblem: (p: ProjectProblem) => void;
  /** Called once, when loading starts (after the initialize answer). */
  onStart?: () => void;
  /** What a Read call of a path would get with nobody asked (the permission engine): `@imports` obey it. */
  readAccess: (path: string, importer: 'user' | 'repository') => Promise<'allow' | 'ask' | 'deny'>;
}

interface Loaded {
  memory: MemoryFile[];
  reminder: string | undefined;
  isGitRepo: boolean;
  nested: NestedMemory;
}

export class ProjectContext implements PromptContextPort {
  private loadedState: Loaded | undefined;
  private loading: Promise<void> | undefined;
  private styles: OutputStyle[];
  private style: OutputStyle;
  private readonly os = osVersion();

  constructor(private readonly o: ProjectContextOptions) {
    const { styles, problems } = loadOutputStyles(o);
    this.styles = styles;
    for (const p of problems) o.onProblem(p);
    this.style = this.pick(o.outputStyle);
  }

  private pick(name: string | undefined): OutputStyle {
    const fallback = findStyle(this.styles, DEFAULT_OUTPUT_STYLE) as OutputStyle;
    if (name === undefined) return fallback;
    const s = findStyle(this.styles, name);
    if (!s) {
      this.o.onProblem({ kind: 'unknown_output_style', file: name, message: `outputStyle ${JSON.stringify(name)} names no known output style (known: ${this.styles.map((x) => x.name).join(', ')}); the default is used` });
      return fallback;
    }
    return s;
  }

  /** Starts loading the memory files (idempotent); resolves when they are in. Never rejects. */
  start(): Promise<void> {
    if (!this.loading) this.o.onStart?.();
    this.loading ??= this.load().catch((err: unknown) => {
      this.o.onProblem({ kind: 'unreadable', file: this.o.cwd, message: `memory files could not be loaded: ${err instanceof Error ? err.message : String(err)}` });
    });
    return this.loading;
  }

  private async load(): Promise<void> {
    const [{ files, scopedRules, problems }, isGitRepo] = await Promise.all([
      loadMemoryFiles({ cwd: this.o.cwd, configDir: this.o.configDir, homeDir: this.o.homeDir, sources: this.o.sources, additionalDirectories: this.o.additionalDirectories(), readAccess: this.o.readAccess }),
      isGitRepository(this.o.cwd),
    ]);
    for (const p of problems) this.o.onProblem(p);
    this.loadedState = {
      memory: files,
      reminder: memoryReminder(files),
      isGitRepo,
      nested: new NestedMemory({
        cwd: this.o.cwd,
        sources: this.o.sources,
        alreadyLoaded: files.map((f) => f.path),
        scopedRules,
        maxFileBytes: MAX_MEMORY_FILE_BYTES,
        onProblem: this.o.onProblem,
        confine: new Confinement({ cwd: this.o.cwd, configDir: this.o.configDir }),
      }),
    };
  }

  ready(): Promise<void> {
    return this.start();
  }

  get memoryFiles(): readonly MemoryFile[] {
    return this.loadedState?.memory ?? [];
  }

  environment(): Pick<PromptEnvironment, 'isGitRepo' | 'osVersion'> {
    return { osVersion: this.os, ...(this.loadedState ? { isGitRepo: this.loadedState.isGitRepo } : {}) };
  }

  extras(): PromptExtras {
    const reminder = this.loadedState?.reminder;
    return {
      ...(this.style.name !== DEFAULT_OUTPUT_STYLE ? { outputStyle: { name: this.style.name, prompt: this.style.prompt, keepCodingInstructions: this.style.keepCodingInstructions } } : {}),
      ...(reminder ? { reminders: [reminder] } : {}),
    };
  }

  get outputStyle(): string {
    return this.style.name;
  }

  get outputStyleNames(): string[] {
    return this.styles.map((s) => s.name);
  }

  /** `reload_output_styles`: the style files are read again; the active style is kept when it still exists. */
  reloadOutputStyles(): string[] {
    const { styles, problems } = loadOutputStyles(this.o);
    this.styles = styles;
    for (const p of problems) this.o.onProblem(p);
    this.style = findStyle(styles, this.style.name) ?? (findStyle(styles, DEFAULT_OUTPUT_STYLE) as OutputStyle);
    return this.outputStyleNames;
  }

  /** The reminders for `@file` mentions in a prompt typed by the user. */
  mentions(prompt: string, cwd: string): string[] {
    return mentionReminders(prompt, { cwd, homeDir: this.o.homeDir, roots: [this.o.cwd, ...this.o.additionalDirectories()] });
  }

  /** Tool hooks that add the CLAUDE.md files of a subdirectory to the result of the first tool call there. */
  withNestedMemory(inner: ToolHooks): ToolHooks {
    const add = async (call: ToolCallInfo, r: PostToolUseResult): Promise<PostToolUseResult> => {
      const nested = this.loadedState?.nested;
      const path = NestedMemory.pathOf(call.input);
      if (!nested || path === undefined) return r;
      const found = await nested.reminders(path, call.toolName === 'Glob' || call.toolName === 'Grep');
      return found.length ? { ...r, additionalContext: [...(r.additionalContext ?? []), ...found] } : r;
    };
    return {
      preToolUse: (call, signal) => inner.preToolUse(call, signal),
      postToolUse: async (call, signal) => add(call, await inner.postToolUse(call, signal)),
      postToolUseFailure: (call, signal) => inner.postToolUseFailure(call, signal),
    };
  }
}
