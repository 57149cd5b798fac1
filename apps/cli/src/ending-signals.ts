/**
 * The signals that end the terminal agent (a closed terminal, `kill`, Ctrl+C outside the
 * editor's raw mode), with the exit code a shell reports for each (128 + number). Both
 * modes catch them so the server shuts down in order: turns interrupted and saved, locks
 * released, the terminal restored.
 */
export const ENDING_SIGNALS = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 } as const;
