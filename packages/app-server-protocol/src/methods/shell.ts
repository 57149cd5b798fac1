/**
 * `thread/shell/run`: a user's own shell command in the thread's working directory
 * (the terminal's `!cmd` and `!!cmd`), run by the thread's `bash` tool so it goes
 * through the same tool operations (and sandbox routing) as the model's calls.
 */
import Type, { type Static } from "typebox";
import { MAX_SHELL_COMMAND_CHARS } from "../limits.ts";
import { NO_NUL_PATTERN } from "../path-pattern.ts";

export const ThreadShellRunParams = Type.Object({
  threadId: Type.String({ minLength: 1, maxLength: 256 }),
  /** No NUL byte: the command is an argument of `bash -c`, which cannot carry one. */
  command: Type.String({ minLength: 1, maxLength: MAX_SHELL_COMMAND_CHARS, pattern: NO_NUL_PATTERN }),
  /** `!!cmd`: recorded in the session but kept out of the model's context. */
  excludeFromContext: Type.Optional(Type.Boolean()),
  /** Client token echoed in `thread/shell/output`, to tell concurrent runs apart. */
  shellId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});
export type ThreadShellRunParams = Static<typeof ThreadShellRunParams>;

export const ThreadShellRunResult = Type.Object({
  /** What the model sees (the bash tool's result text, cut like a tool result). */
  output: Type.String(),
  /** Null when a signal ended the command. */
  exitCode: Type.Union([Type.Integer(), Type.Null()]),
  cancelled: Type.Boolean(),
  truncated: Type.Boolean(),
  fullOutputPath: Type.Optional(Type.String()),
});
export type ThreadShellRunResult = Static<typeof ThreadShellRunResult>;
