import { describe, expect, test } from "bun:test";
import {
  isOutsideWorkspace,
  isToolPathOutsideWorkspace,
  isWithin,
  type RealpathFn,
  resolveTarget,
  toolPathCandidates,
} from "@knightcode/approvals";

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

describe("toolPathCandidates", () => {
  test("reads a path as given, trimmed, and without a leading @, expanding ~ to the home dir", () => {
    expect(toolPathCandidates("src/a.ts")).toEqual(["src/a.ts"]);
    expect(toolPathCandidates(" @/etc/x ")).toEqual([" @/etc/x ", "@/etc/x", "/etc/x"]);
    expect(toolPathCandidates("~/.bashrc", "/home/me")).toEqual(["/home/me/.bashrc"]);
    expect(toolPathCandidates("~", "/home/me")).toEqual(["/home/me"]);
  });

  test("a path no reading can place is null: ~ without a home dir, ~user, blank", () => {
    expect(toolPathCandidates("~/.bashrc")).toBeNull();
    expect(toolPathCandidates("@~/.bashrc")).toBeNull();
    expect(toolPathCandidates("~root/.bashrc", "/home/me")).toBeNull();
    expect(toolPathCandidates("   ")).toBeNull();
  });
});

describe("isToolPathOutsideWorkspace", () => {
  const cwd = "/home/me/proj";
  test("outside when any reading is outside", () => {
    for (const path of ["@/etc/passwd", " /etc/passwd", "\t../a", "@../a", "~/.bashrc", "~"]) {
      expect(isToolPathOutsideWorkspace(path, cwd, fs, "/home/me")).toBe(true);
    }
  });

  test("inside when every reading is inside, including ~ paths into the workspace", () => {
    for (const path of ["src/a.ts", "@src/a.ts", " src/a.ts", "~/proj/a.ts"]) {
      expect(isToolPathOutsideWorkspace(path, cwd, fs, "/home/me")).toBe(false);
    }
  });

  test("a ~ path is outside when the home dir is unknown", () => {
    expect(isToolPathOutsideWorkspace("~/proj/a.ts", cwd, fs)).toBe(true);
  });
});
