/**
 * `knightcode web` as a process: the page and its headers over real HTTP from the child,
 * the listener's Origin check in front of it, and `--open` handing the pairing link to
 * the desktop's opener (a stand-in `xdg-open` on PATH that records its argument).
 */
import { describe, expect, test } from "bun:test";
import { watch } from "node:fs";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startWebChild } from "./support/web-child.ts";

/** Resolves with a file's contents once it exists (written by a rename, so whole). */
function whenWritten(dir: string, name: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const watcher = watch(dir);
    const timer = setTimeout(() => {
      watcher.close();
      reject(new Error(`${name} was not written within ${timeoutMs} ms`));
    }, timeoutMs);
    const check = () => {
      readFile(join(dir, name), "utf8").then(
        (text) => {
          clearTimeout(timer);
          watcher.close();
          resolve(text);
        },
        () => {},
      );
    };
    watcher.on("change", check);
    check();
  });
}

describe("knightcode web", () => {
  test("serves the page at / with its policy; a foreign Origin is refused before the page", async () => {
    await using server = await startWebChild();
    const page = await fetch(`${server.origin}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain("<title>KnightCode</title>");
    const script = /src="\.\/([^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect((await fetch(`${server.origin}/${script}`)).headers.get("content-type")).toContain("javascript");
    expect((await fetch(`${server.origin}/nope`)).status).toBe(404);
    expect((await fetch(`${server.origin}/`, { headers: { origin: "http://evil.example" } })).status).toBe(
      403,
    );
    // the link's token is the one the server accepts: the fragment is the only place it is given
    expect(new URLSearchParams(server.link.split("#")[1]).get("token")?.length).toBeGreaterThanOrEqual(16);
  }, 60_000);

  test("--open hands the pairing link to the desktop's opener", async () => {
    const bin = await mkdtemp(join(tmpdir(), "knightcode-opener-"));
    try {
      const opener = join(bin, "xdg-open");
      await writeFile(
        opener,
        '#!/bin/sh\nprintf \'%s\' "$1" > "$OPENED.tmp" && mv "$OPENED.tmp" "$OPENED"\n',
      );
      await chmod(opener, 0o755);
      await using server = await startWebChild({
        args: ["--open"],
        env: { PATH: `${bin}:${process.env.PATH ?? ""}`, OPENED: join(bin, "opened") },
      });
      expect(await whenWritten(bin, "opened", 20_000)).toBe(server.link);
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  }, 60_000);
});
