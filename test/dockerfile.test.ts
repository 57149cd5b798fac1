import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
const dockerfile = readFileSync(join(root, "Dockerfile.knightcode"), "utf8");
const packageJson = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  packageManager: string;
};

describe("Dockerfile.knightcode", () => {
  test("starts from node:24-bookworm-slim and ends in the knightcode entry point", () => {
    expect(dockerfile).toMatch(/^FROM node:24-bookworm-slim$/m);
    expect(dockerfile.trimEnd().split("\n").at(-1)).toBe('ENTRYPOINT ["knightcode"]');
  });

  test("installs the Bun version package.json pins", () => {
    const pinned = packageJson.packageManager.split("@")[1];
    expect(dockerfile).toContain(`ARG BUN_VERSION=${pinned}`);
  });

  test("installs what the tools run: fd, ripgrep, git and bubblewrap", () => {
    const install = /apt-get install[^\n]*/.exec(dockerfile)?.[0] ?? "";
    for (const pkg of ["bubblewrap", "fd-find", "git", "ripgrep"]) expect(install).toContain(pkg);
  });

  test("runs as an unprivileged user in /workspace, not as root", () => {
    expect(dockerfile).toMatch(/^USER knightcode$/m);
    expect(dockerfile).toMatch(/^WORKDIR \/workspace$/m);
  });
});
