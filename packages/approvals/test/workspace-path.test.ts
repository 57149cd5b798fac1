import { describe, expect, test } from "bun:test";
import { isOutsideWorkspace, isWithin, type RealpathFn, resolveTarget } from "@knightcode/approvals";

/** A pure in-memory filesystem: existing paths and symlinks (absolute targets). */
function fakeFs(dirs: string[], links: Record<string, string>): RealpathFn {
  const resolve = (path: string, depth = 0): string | null => {
    if (depth > 20) throw new Error("ELOOP");
    const parts = path.split("/").filter(Boolean);
    let current = "";
    for (const part of parts) {
      const next = `${current}/${part}`;
      const target = links[next];
      if (target !== undefined) {
        const resolved = resolve(target, depth + 1);
        if (resolved === null) return null;
        current = resolved;
      } else if (dirs.includes(next)) current = next;
      else return null;
    }
    return current === "" ? "/" : current;
  };
  return (path) => resolve(path);
}

const fs = fakeFs(["/home", "/home/me", "/home/me/proj", "/home/me/proj/src", "/data", "/data/shared"], {
  "/home/me/proj/link": "/data/shared",
  "/home/me/proj/inner": "/home/me/proj/src",
  "/home/me/proj/loop": "/home/me/proj/loop",
  "/work": "/home/me",
});

describe("resolveTarget", () => {
  test("follows symlinks component by component and applies .. to the real location", () => {
    expect(resolveTarget("link/../x", "/home/me/proj", fs)).toEqual({ path: "/data/x", certain: true });
    expect(resolveTarget("inner/../x", "/home/me/proj", fs)).toEqual({
      path: "/home/me/proj/x",
      certain: true,
    });
  });

  test("applies components after a missing one lexically", () => {
    expect(resolveTarget("new/a/../b", "/home/me/proj", fs)).toEqual({
      path: "/home/me/proj/new/b",
      certain: true,
    });
  });

  test("resolves a symlinked cwd", () => {
    expect(resolveTarget("x", "/work/proj", fs).path).toBe("/home/me/proj/x");
  });

  test("a component that cannot be resolved makes the answer uncertain", () => {
    expect(resolveTarget("loop/x", "/home/me/proj", fs).certain).toBe(false);
  });

  test(".. above the root stays at the root", () => {
    expect(resolveTarget("../../../../..", "/home/me", fs).path).toBe("/");
  });
});

describe("isOutsideWorkspace", () => {
  const cwd = "/home/me/proj";
  test("inside paths", () => {
    for (const path of ["a.ts", "src/a.ts", "inner/a.ts", "./x/../y", "/home/me/proj/z", "/work/proj/z"]) {
      expect(isOutsideWorkspace(path, cwd, fs)).toBe(false);
    }
  });

  test("outside paths", () => {
    for (const path of [
      "../a",
      "/etc/passwd",
      "link/a",
      "link/../a",
      "src/../../a",
      "/home/me/projx/a",
      "/home/me",
    ]) {
      expect(isOutsideWorkspace(path, cwd, fs)).toBe(true);
    }
  });

  test("an unresolvable path counts as outside", () => {
    expect(isOutsideWorkspace("loop/a", cwd, fs)).toBe(true);
  });

  test("an unresolvable cwd makes everything outside", () => {
    expect(isOutsideWorkspace("a", "/home/me/proj/loop", fs)).toBe(true);
  });
});

describe("isWithin", () => {
  test("compares whole components, not string prefixes", () => {
    expect(isWithin("/a/b/c", "/a/b")).toBe(true);
    expect(isWithin("/a/b", "/a/b")).toBe(true);
    expect(isWithin("/a/bc", "/a/b")).toBe(false);
    expect(isWithin("/a", "/a/b")).toBe(false);
  });
});
