/**
 * `knightcode web`: the app server on a WebSocket listener that also serves the web
 * client at `/`, and the pairing link on stderr. The link carries the token in its
 * fragment (`#token=…`), which the browser never sends to a server; the page keeps it
 * for the tab and takes it out of the address bar. `--open` hands the link to the
 * desktop's opener.
 */
import type { ListeningInfo } from "@knightcode/app-server";
import { runAppServer } from "./app-server-command.ts";
import type { ServerOptions } from "./args.ts";

/** The page's address for a listener: http(s) on the same host and port, token and cwd in the fragment. */
export function pairingLink(info: Pick<ListeningInfo, "url" | "token">, cwd: string): string {
  const page = info.url.replace(/^ws(s?):\/\//, "http$1://");
  const fragment = new URLSearchParams({ ...(info.token === undefined ? {} : { token: info.token }), cwd });
  return `${page}/#${fragment.toString()}`;
}

/** The program that opens a URL in the desktop's browser. */
function opener(): string[] {
  if (process.platform === "darwin") return ["open"];
  if (process.platform === "win32") return ["cmd", "/c", "start", ""];
  return ["xdg-open"];
}

function openInBrowser(link: string): void {
  try {
    const child = Bun.spawn([...opener(), link], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
    child.unref();
  } catch (error) {
    process.stderr.write(
      `knightcode web: could not open a browser (${(error as Error).message}); open the link yourself\n`,
    );
  }
}

/** Runs the listener with the web client until shutdown. */
export async function runWeb(options: ServerOptions & { open: boolean }): Promise<void> {
  const { open, ...serverOptions } = options;
  const { loadWebAssets, webClientResponse } = await import("@knightcode/web");
  // bundled (from the sources) or unpacked (the binary) before listening: the first page load does not wait
  const assets = await loadWebAssets();
  await runAppServer(serverOptions, {
    staticAssets: (request) => webClientResponse(assets, request),
    onListening: (info) => {
      const link = pairingLink(info, process.cwd());
      process.stderr.write(`knightcode web: open ${link}\n`);
      if (open) openInBrowser(link);
    },
  });
}
