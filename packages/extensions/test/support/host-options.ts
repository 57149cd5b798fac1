/** A thread's place on disk and the host options a thread manager would pass for it, for the extensions' tests. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ExtensionHostOptions } from "../../src/host-contract.ts";

/** A temp root with `agent/` and `project/`, and `files` (paths relative to the root) written into it. */
export function hostPlace(files: Record<string, string> = {}): {
  root: string;
  agentDir: string;
  cwd: string;
} {
  const root = mkdtempSync(join(tmpdir(), "kc-extension-host-"));
  const agentDir = join(root, "agent");
  const cwd = join(root, "project");
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return { root, agentDir, cwd };
}

/** A desktop thread's host options at `at`: no `-e` paths, empty settings, untrusted, at startup. */
export function hostOptions(
  at: { agentDir: string; cwd: string },
  extra: Partial<ExtensionHostOptions> = {},
): ExtensionHostOptions {
  return {
    context: { threadId: "t1", cwd: at.cwd, mode: "desktop", hasUI: false },
    extensionPaths: [],
    agentDir: at.agentDir,
    settings: {},
    trusted: false,
    projectDir: at.cwd,
    reason: "startup",
    ...extra,
  };
}
