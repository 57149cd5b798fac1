/** The `bash` tool: run a shell command in its own process group with streamed, tail-truncated output. */
import type { Static } from "typebox";
import type { AgentTool } from "../types.ts";
import { OutputCollector } from "./output-collector.ts";
import { type ToolEnv, text } from "./tool-env.ts";
import { formatSize, type Truncation } from "./truncate.ts";
import { withTypeBoxKinds } from "./typebox-kinds.ts";

/** Arguments of `bash`. */
export const BashParams = withTypeBoxKinds({
  type: "object",
  required: ["command"],
  properties: {
    command: { type: "string", description: "The command line to run with bash -c" },
    timeout: { type: "number", exclusiveMinimum: 0, description: "Timeout in seconds; none by default" },
  },
} as const);
/** The static type of {@link BashParams}. */
export type BashParams = Static<typeof BashParams>;

/** Details of a `bash` result. */
export interface BashDetails {
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  truncation?: Truncation;
  /** Where the complete output was saved when the model saw only its tail. */
  fullOutputPath?: string;
  /** The command exited while a background process still held its output (no longer captured). */
  outputDetached?: boolean;
}

// Partial results are for humans watching; a few per second is plenty.
const UPDATE_INTERVAL_MS = 100;

/** Creates the `bash` tool. */
export function createBashTool(env: ToolEnv): AgentTool<typeof BashParams, BashDetails> {
  return {
    name: "bash",
    label: "Bash",
    description:
      "Run a bash command in the working directory. Output (stdout and stderr) is cut to the last 2000 lines or 50 KB; the full output is saved to a file named in the result. Optional timeout in seconds.",
    parameters: BashParams,
    async execute(args, ctx) {
      const collector = new OutputCollector(env.ops);
      let lastUpdate = 0;
      const onChunk = (chunk: Uint8Array, stream: "stdout" | "stderr") => {
        collector.push(chunk, stream);
        const now = Date.now();
        if (now - lastUpdate >= UPDATE_INTERVAL_MS) {
          lastUpdate = now;
          ctx.onUpdate({ content: text(collector.snapshot()) });
        }
      };
      const shell = env.ops.shell();
      const result = await env.ops.spawn({
        file: shell.file,
        args: [...shell.args, args.command],
        cwd: env.cwd,
        signal: ctx.signal,
        ...(args.timeout !== undefined ? { timeoutMs: Math.round(args.timeout * 1000) } : {}),
        onStdout: (chunk) => onChunk(chunk, "stdout"),
        onStderr: (chunk) => onChunk(chunk, "stderr"),
      });
      const { truncation, fullOutputPath } = await collector.finish();

      // The final newline most commands print is noise between the output and our notices.
      const body = truncation.content.endsWith("\n") ? truncation.content.slice(0, -1) : truncation.content;
      let output = body === "" ? "(no output)" : body;
      if (truncation.truncated) {
        const start = truncation.totalLines - truncation.outputLines + 1;
        const shown = truncation.partialFirstLine
          ? `the last ${formatSize(new TextEncoder().encode(truncation.content).length)} of line ${truncation.totalLines}`
          : `lines ${start}-${truncation.totalLines} of ${truncation.totalLines}`;
        const saved = fullOutputPath ? ` Full output: ${fullOutputPath}` : "";
        output += `\n\n[Output truncated: showing ${shown} (${formatSize(truncation.totalBytes)} total).${saved}]`;
      }
      let failure: string | undefined;
      if (result.aborted) failure = "Command aborted.";
      else if (result.timedOut) failure = `Command timed out after ${args.timeout} seconds.`;
      else if (result.exitCode !== 0) {
        failure =
          result.exitCode === null
            ? `Command killed by ${result.signal}.`
            : `Command exited with code ${result.exitCode}.`;
      }
      if (failure) output += `\n\n${failure}`;
      else if (result.outputDetached) {
        output += `\n\n[A background process still holds the output; its later output is not captured. Redirect it to a file to keep it.]`;
      }
      return {
        content: text(output),
        details: {
          exitCode: result.exitCode,
          timedOut: result.timedOut,
          aborted: result.aborted,
          ...(truncation.truncated ? { truncation } : {}),
          ...(fullOutputPath ? { fullOutputPath } : {}),
          ...(result.outputDetached ? { outputDetached: true } : {}),
        },
        isError: failure !== undefined,
      };
    },
  };
}
