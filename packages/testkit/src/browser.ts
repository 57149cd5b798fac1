/**
 * Debian's chromium, driven by playwright-core (no browser download), headless, in a fresh
 * profile, with everything that would reach past the machine switched off.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A browser with one page; the profile goes with it. */
export interface Browser extends AsyncDisposable {
  readonly context: BrowserContext;
  readonly page: Page;
}

/** Launches chromium with a profile of its own. */
export async function launchBrowser(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "knightcode-chromium-"));
  // a persistent context is how playwright takes a --user-data-dir of our choosing
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 860 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async [Symbol.asyncDispose]() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
