/**
 * The pairing link: `knightcode web` prints `http://host:port/#token=...&cwd=...`. The
 * fragment never reaches a server or a proxy log; the page keeps the token in
 * sessionStorage (this tab only, gone when it closes) and takes the fragment out of the
 * address bar and history at once, so the token is not left where it can be copied or
 * bookmarked by accident.
 */

const TOKEN_KEY = "knightcode.token";
const CWD_KEY = "knightcode.cwd";
const THREAD_KEY = "knightcode.thread";

/** What the page was paired with. */
export interface Pairing {
  token: string | undefined;
  cwd: string | undefined;
}

/** Reads the pairing from the fragment (storing it) or from this tab's storage. */
export function takePairing(location: Location, history: History, storage: Storage): Pairing {
  const fragment = new URLSearchParams(location.hash.replace(/^#/, ""));
  const token = fragment.get("token");
  const cwd = fragment.get("cwd");
  if (token !== null && token !== "") storage.setItem(TOKEN_KEY, token);
  if (cwd !== null && cwd !== "") storage.setItem(CWD_KEY, cwd);
  if (location.hash !== "") history.replaceState(history.state, "", location.pathname + location.search);
  return { token: storage.getItem(TOKEN_KEY) ?? undefined, cwd: storage.getItem(CWD_KEY) ?? undefined };
}

/** Remembers the project folder the reader chose last. */
export function rememberCwd(storage: Storage, cwd: string): void {
  storage.setItem(CWD_KEY, cwd);
}

/** Remembers the open thread, so a reload of the tab opens it again. */
export function rememberThread(storage: Storage, threadId: string): void {
  storage.setItem(THREAD_KEY, threadId);
}

/** The thread this tab had open. */
export function rememberedThread(storage: Storage): string | undefined {
  return storage.getItem(THREAD_KEY) ?? undefined;
}
