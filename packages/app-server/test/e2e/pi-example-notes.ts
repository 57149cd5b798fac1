/**
 * What each of pi's example extensions does on KnightCode without a terminal UI. The
 * pi-examples test reads this: an example marked `works` must have a test there that
 * proves its effect; a load problem overrides any status with `fails`. The table it
 * prints is the one docs/pi-compatibility.md carries.
 */

export type Status = "works" | "loaded" | "inert-without-UI" | "fails";

export interface ExampleNote {
  status: Status;
  note: string;
}

export interface ExampleStatus {
  name: string;
  status: Status;
  note: string;
}

const works = (note: string): ExampleNote => ({ status: "works", note });
const loaded = (note: string): ExampleNote => ({ status: "loaded", note });
const inert = (note: string): ExampleNote => ({ status: "inert-without-UI", note });
const fails = (note: string): ExampleNote => ({ status: "fails", note });

export const PI_EXAMPLE_NOTES: Record<string, ExampleNote> = {
  "auto-commit-on-exit.ts": loaded("commits at session_shutdown (thread unload)"),
  "bash-spawn-hook.ts": loaded("bash override through createBashTool's spawn hook"),
  "bookmark.ts": works("label entries via setLabel; getLabel reads them"),
  "border-status-editor.ts": inert("custom editor component"),
  "built-in-tool-renderer.ts": inert("tool renderers only"),
  "claude-rules.ts": loaded("adds rules files to the system prompt"),
  "commands.ts": inert("lists commands in a notification"),
  "confirm-destructive.ts": works("asks a dialog client before thread/fork and /new; No refuses them"),
  "custom-compaction.ts": works("summary from its own complete() call over KnightCode's providers"),
  "custom-footer.ts": inert("footer component (drawn by the terminal agent)"),
  "custom-header.ts": inert("header component"),
  "custom-provider-anthropic": loaded(
    "its streamSimple provider registers and lists its models; its base URL is fixed to api.anthropic.com, so no turn reaches the mock",
  ),
  "custom-provider-gitlab-duo": loaded(
    "its streamSimple provider registers and lists its models; it fetches tokens from gitlab.com, so no turn reaches the mock",
  ),
  "dirty-repo-guard.ts": works("uncommitted changes refuse thread/fork, /fork and /new"),
  "doom-overlay": inert("overlay game"),
  "dynamic-resources": works(
    "its skill and prompt template from resources_discover (its themes are not read)",
  ),
  "dynamic-tools.ts": works("tools registered at session_start and by a command reach the model"),
  "event-bus.ts": loaded("pi.events between extensions of one thread"),
  "file-trigger.ts": fails(
    "watches the fixed path /tmp/agent-trigger.txt, which must exist; the warning names it",
  ),
  "git-checkpoint.ts": loaded("git stash checkpoints on turn_start"),
  "github-issue-autocomplete.ts": inert("editor autocompletion"),
  "handoff.ts": inert("edits the new prompt in ctx.ui.editor"),
  "hello.ts": works("tool result reaches the model"),
  "hidden-thinking-label.ts": inert("thinking label"),
  "inline-bash.ts": works("!{cmd} expanded before the model sees the prompt"),
  "input-transform.ts": works("transformed and handled inputs"),
  "interactive-shell.ts": inert("runs interactive commands in the terminal"),
  "mac-system-theme.ts": inert("terminal theme"),
  "message-renderer.ts": inert("message renderer (drawn by the terminal agent)"),
  "minimal-mode.ts": inert("tool renderers only"),
  "modal-editor.ts": inert("editor component"),
  "model-status.ts": inert("status bar"),
  "notify.ts": inert("desktop notification escape codes at agent_end"),
  "overlay-qa-tests.ts": inert("overlays"),
  "overlay-test.ts": inert("overlays (drawn by the terminal agent)"),
  "permission-gate.ts": works("dangerous bash blocked without a UI"),
  "pirate.ts": works("system prompt the model receives"),
  "plan-mode": works("--plan: read-only tools and the plan prompt; its plan picker needs a UI"),
  "preset.ts": inert("preset picker (select)"),
  "prompt-customizer.ts": loaded("system prompt from before_agent_start"),
  "protected-paths.ts": works("blocked write, no file"),
  "provider-payload.ts": works("logs request bodies and response status and headers"),
  "qna.ts": inert("answers in ctx.ui.custom"),
  "question.ts": inert("tool asks in ctx.ui.custom: answers that the user gave no answer"),
  "questionnaire.ts": inert("tool asks in ctx.ui.custom: answers that the user gave no answer"),
  "rainbow-editor.ts": inert("editor component"),
  "reload-runtime.ts": loaded("ctx.reload() from a command"),
  "rpc-demo.ts": inert("exercises pi's RPC UI"),
  sandbox: works("bash override: spread of createBashTool with a delegating execute"),
  "send-user-message.ts": works("/ask starts a turn with its text"),
  "session-name.ts": works("thread name"),
  "shutdown-command.ts": loaded("ctx.shutdown() does not stop a shared server"),
  "snake.ts": inert("game"),
  "space-invaders.ts": inert("game"),
  "ssh.ts": loaded("tools over ssh when --ssh is given; off by default"),
  "status-line.ts": inert("status line"),
  "structured-output.ts": works("terminating tool: no further model request"),
  subagent: loaded("spawns the pi binary for sub-agents, which KnightCode does not ship"),
  "summarize.ts": inert("shows the summary in ctx.ui.custom"),
  "system-prompt-header.ts": inert("status widget"),
  "tic-tac-toe.ts": inert("game board in ctx.ui.custom"),
  "timed-confirm.ts": inert("timed dialogs: they resolve at once"),
  "titlebar-spinner.ts": works(
    "a dialog client gets its title on agent_start and agent_end (extension/titleChanged)",
  ),
  "todo.ts": works("state rebuilt from the session after resume and after thread/tree/navigate"),
  "tool-override.ts": works("overridden read: logged, .env refused"),
  "tools.ts": inert("tool picker (ctx.ui.custom)"),
  "trigger-compact.ts": loaded("ctx.compact() past a token threshold"),
  "truncated-tool.ts": loaded("truncateHead in a tool"),
  "widget-placement.ts": works(
    "a dialog client that opens the thread gets both widgets set at session_start, with their placement",
  ),
  "with-deps": works("its own dependency after npm install"),
  "working-indicator.ts": works(
    "a dialog client gets its indicator frames (extension/workingIndicatorChanged), set at session_start and by /working-indicator",
  ),
  "working-message-test.ts": works(
    "a dialog client that opens the thread gets the working message set at session_start",
  ),
};

/** The Markdown table of statuses. */
export function exampleStatusTable(rows: readonly ExampleStatus[]): string {
  const lines = ["| Example | Status | Notes |", "| --- | --- | --- |"];
  for (const row of rows) lines.push(`| \`${row.name}\` | ${row.status} | ${row.note} |`);
  return lines.join("\n");
}
