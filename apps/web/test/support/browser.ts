/** The testkit's headless chromium (Debian's, driven by playwright-core), shared with the CLI's export test. */
export { type Browser, CHROMIUM, launchBrowser } from "@knightcode/testkit/browser";
