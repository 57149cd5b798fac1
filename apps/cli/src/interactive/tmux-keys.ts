/**
 * Inside tmux, Shift+Enter reaches a program only with tmux's extended keys on; without
 * them tmux sends a plain Enter (or nothing), and the key silently does nothing. The
 * terminal asks tmux once at start and says how to turn them on.
 */

/** The hint to show when tmux's `extended-keys` option is off; undefined outside tmux or when it is on. */
export async function tmuxExtendedKeysHint(
  env: Record<string, string | undefined> = process.env,
): Promise<string | undefined> {
  if (env.TMUX === undefined || env.TMUX === "") return undefined;
  let value: string;
  try {
    const child = Bun.spawn(["tmux", "show-options", "-gv", "extended-keys"], {
      stdout: "pipe",
      stderr: "ignore",
      stdin: "ignore",
    });
    value = (await new Response(child.stdout).text()).trim();
    if ((await child.exited) !== 0) return undefined;
  } catch {
    return undefined;
  }
  if (value !== "off") return undefined;
  return [
    "tmux sends Shift+Enter as a plain Enter unless its extended keys are on. Add to ~/.tmux.conf:",
    "  set -g extended-keys on",
    "  set -as terminal-features 'xterm*:extkeys'",
    "then run `tmux source-file ~/.tmux.conf` (or restart tmux). Until then Ctrl+J adds a new line.",
  ].join("\n");
}
