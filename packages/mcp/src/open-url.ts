/**
 * Opens a URL in the user's browser with the system's opener (`open` on macOS,
 * `xdg-open` elsewhere), detached and silent; a missing opener is only logged, since the
 * URL is on stderr too.
 */
import { spawn } from "node:child_process";

/** Starts the opener for `url`; never throws. */
export function openInBrowser(url: string, log: (line: string) => void): void {
  const opener = process.platform === "darwin" ? "open" : "xdg-open";
  try {
    const child = spawn(opener, [url], { detached: true, stdio: "ignore" });
    child.on("error", (error) => log(`could not start ${opener}: ${error.message}`));
    child.unref();
  } catch (error) {
    log(`could not start ${opener}: ${String(error)}`);
  }
}
