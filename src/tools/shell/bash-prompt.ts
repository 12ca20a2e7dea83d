// What the model is told about Bash: the description and the input schema sent to the API. The schema's
// wording follows Claude Code's (models are trained on it); the description states agentd's own behaviour.

export const BASH_DESCRIPTION = `Executes a bash command and returns its output.

- Each call runs in a fresh \`bash -c\` shell: shell state (variables, functions, aliases) does not persist between calls. A \`cd\` carries over to the next call when the command succeeds and ends inside the working directories; outside them the next call starts where this one started. Prefer absolute paths.
- IMPORTANT: Avoid using this tool to run \`cat\`, \`head\`, \`tail\`, \`sed\`, \`awk\`, or \`echo\` commands, unless explicitly instructed or after you have verified that a dedicated tool cannot accomplish your task. Instead, use the appropriate dedicated tool as this will provide a much better experience for the user.
- stdin is closed: interactive commands (and interactive flags such as \`git rebase -i\` or \`git add -i\`) do not work.
- stdout and stderr are returned together, in order. Long output is cut in the middle; the full output is saved to a file whose path is given, which you can read with the Read tool.
- \`timeout\` is in milliseconds: default 120000, max 600000 for a foreground command. On timeout the command and everything it started are stopped.
- \`run_in_background\` runs the command detached: it keeps running across turns, and its output is written to a file whose path is returned (read it with the Read tool; stop the command with TaskStop). With it, \`timeout\` is how long the command may run in the background (default 1800000, max 7200000). No \`&\` needed.
- A process a foreground command leaves running with \`&\` keeps running after the call returns, but its output is no longer collected: use \`run_in_background\` for servers and watchers.

# Git
- Use the \`gh\` CLI for GitHub operations (PRs, issues, API).
- Commit or push only when the user asks. If on the default branch, branch first.
- Do not commit files that likely contain secrets (.env, credentials.json, etc). Warn the user if they specifically request to commit those files.`;

export const BASH_INPUT_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    command: { description: 'The command to execute', type: 'string' },
    timeout: { description: 'Optional timeout in milliseconds (max 600000 for a foreground command)', type: 'number' },
    description: {
      description:
        'Clear, concise description of what this command does in active voice. Never use words like "complex" or "risk" in the description - just describe what it does.\n\n' +
        'Say what the command does in plain words: do not echo the command\'s text, its flags, or file paths - the user reads this description, often without seeing the command.\n\n' +
        'For simple commands (git, npm, standard CLI tools), keep it brief (5-10 words):\n' +
        '- ls → "List files in current directory"\n- git status → "Show working tree status"\n- npm install → "Install package dependencies"\n\n' +
        'For commands that are harder to parse at a glance (piped commands, obscure flags, etc.), add enough context to clarify what it does:\n' +
        '- find . -name "*.tmp" -exec rm {} \\; → "Find and delete all .tmp files recursively"\n' +
        '- git reset --hard origin/main → "Discard all local changes and match remote main"\n' +
        '- curl -s url | jq \'.data[]\' → "Fetch JSON from URL and extract data array elements"',
      type: 'string',
    },
    run_in_background: {
      description:
        'Set to true to run this command in the background. With it, `timeout` limits how long the command may run in the background before it is stopped (default 1800000 ms, max 7200000 ms).',
      type: 'boolean',
    },
    dangerouslyDisableSandbox: {
      description: 'Set this to true to dangerously override sandbox mode and run commands without sandboxing.',
      type: 'boolean',
    },
  },
  required: ['command'],
  additionalProperties: false,
};
