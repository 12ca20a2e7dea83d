// A configuration that cannot be honoured stops the start-up: exit code 2, one stderr line, and for stream-json
// output a typed error result the SDK shows (cli/main.ts). `reason` is a stable code (Claude Code's
// SDKStartupFailureReason names where one fits: config_file_invalid, managed_settings_invalid, …).
export class StartupError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}

export { StartupError as ConfigError };
