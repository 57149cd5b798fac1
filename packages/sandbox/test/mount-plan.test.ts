import { describe, expect, test } from "bun:test";
import { bwrapArgs, collapsePaths, isWithin, type MountPlanInput } from "../src/index.ts";
import { exposedHomeSecrets } from "../src/mount-plan.ts";

const base: MountPlanInput = {
  cwd: "/work/project",
  homes: ["/home/u"],
  hidden: [],
  hiddenFiles: [],
  extraWritable: [],
  readable: [],
  gitPaths: [],
  readOnly: [],
  network: "off",
};

/** Positions of `--flag a b` triples, for checking mount order. */
function indexOf(args: string[], ...seq: string[]): number {
  for (let i = 0; i < args.length; i++) if (seq.every((s, j) => args[i + j] === s)) return i;
  return -1;
}

describe("bwrapArgs", () => {
  test("new user, PID, IPC and UTS namespaces, die-with-parent, no network when off", () => {
    const args = bwrapArgs(base);
    for (const flag of [
      "--unshare-user",
      "--unshare-pid",
      "--unshare-ipc",
      "--unshare-uts",
      "--die-with-parent",
      "--new-session",
      "--unshare-net",
    ])
      expect(args).toContain(flag);
    expect(bwrapArgs({ ...base, network: "on" })).not.toContain("--unshare-net");
  });

  test("system read-only, private /tmp, empty home, then the project writable at its own path", () => {
    const args = bwrapArgs(base);
    const system = indexOf(args, "--ro-bind", "/", "/");
    const tmp = indexOf(args, "--tmpfs", "/tmp");
    const home = indexOf(args, "--tmpfs", "/home/u");
    const project = indexOf(args, "--bind", "/work/project", "/work/project");
    expect(system).toBeGreaterThanOrEqual(0);
    expect(system).toBeLessThan(tmp);
    expect(tmp).toBeLessThan(home);
    expect(home).toBeLessThan(project);
    expect(args.slice(-2)).toEqual(["--chdir", "/work/project"]);
  });

  test("a hidden dir containing the project goes before its bind; one inside goes after", () => {
    const args = bwrapArgs({ ...base, hidden: ["/work", "/work/project/.sessions"] });
    const project = indexOf(args, "--bind", "/work/project", "/work/project");
    expect(indexOf(args, "--tmpfs", "/work")).toBeLessThan(project);
    expect(indexOf(args, "--tmpfs", "/work/project/.sessions")).toBeGreaterThan(project);
  });

  test(".git, hard-linked files and hidden files are mounted read-only on top of the project", () => {
    const args = bwrapArgs({
      ...base,
      gitPaths: ["/work/project/.git"],
      readOnly: ["/work/project/linked.txt"],
      hiddenFiles: ["/work/project/.netrc"],
    });
    const project = indexOf(args, "--bind", "/work/project", "/work/project");
    expect(indexOf(args, "--ro-bind", "/work/project/.git", "/work/project/.git")).toBeGreaterThan(project);
    expect(
      indexOf(args, "--ro-bind", "/work/project/linked.txt", "/work/project/linked.txt"),
    ).toBeGreaterThan(project);
    expect(indexOf(args, "--ro-bind", "/dev/null", "/work/project/.netrc")).toBeGreaterThan(project);
  });

  test("extra readable paths come before the writable roots, extra writable ones are bound read-write", () => {
    const args = bwrapArgs({ ...base, readable: ["/home/u/tools"], extraWritable: ["/data/cache"] });
    expect(indexOf(args, "--ro-bind-try", "/home/u/tools", "/home/u/tools")).toBeGreaterThan(
      indexOf(args, "--tmpfs", "/home/u"),
    );
    expect(indexOf(args, "--bind", "/data/cache", "/data/cache")).toBeGreaterThan(0);
  });
});

describe("bwrapArgs with a workspace", () => {
  test("the cwd and what lies in it are mounted below the workspace on a rebuilt, read-only root", () => {
    const args = bwrapArgs({
      ...base,
      workspace: "/workspace",
      gitPaths: ["/work/project/.git"],
      rootEntries: [{ name: "usr" }, { name: "bin", symlink: "usr/bin" }, { name: "proc" }, { name: "tmp" }],
    });
    expect(indexOf(args, "--ro-bind", "/", "/")).toBe(-1);
    expect(indexOf(args, "--tmpfs", "/")).toBeGreaterThanOrEqual(0);
    expect(indexOf(args, "--ro-bind", "/usr", "/usr")).toBeGreaterThan(0);
    expect(indexOf(args, "--symlink", "usr/bin", "/bin")).toBeGreaterThan(0);
    expect(indexOf(args, "--ro-bind", "/proc", "/proc")).toBe(-1);
    expect(indexOf(args, "--bind", "/work/project", "/workspace")).toBeGreaterThan(0);
    expect(indexOf(args, "--ro-bind", "/work/project/.git", "/workspace/.git")).toBeGreaterThan(0);
    expect(indexOf(args, "--remount-ro", "/")).toBeGreaterThan(
      indexOf(args, "--bind", "/work/project", "/workspace"),
    );
    expect(args.slice(-2)).toEqual(["--chdir", "/workspace"]);
  });
});

describe("mount planning helpers", () => {
  test("isWithin compares whole path segments", () => {
    expect(isWithin("/a/b", "/a")).toBe(true);
    expect(isWithin("/a", "/a")).toBe(true);
    expect(isWithin("/ab", "/a")).toBe(false);
    expect(isWithin("/a", "/a/b")).toBe(false);
  });

  test("home secrets are re-hidden only when a writable root exposes them", () => {
    expect(exposedHomeSecrets(["/home/u"], ["/work/project"])).toEqual([]);
    expect(exposedHomeSecrets(["/home/u"], ["/home/u"])).toContain("/home/u/.ssh");
    expect(exposedHomeSecrets(["/home/u"], ["/home/u/.config"])).toEqual(["/home/u/.config/gcloud"]);
  });

  test("collapsePaths folds deep files into their folders, never into a root", () => {
    const files = Array.from({ length: 10 }, (_, i) => `/p/node_modules/pkg${i % 3}/f${i}.js`);
    const folded = collapsePaths(files, ["/p"], 4);
    expect(folded).toEqual(["/p/node_modules/pkg0", "/p/node_modules/pkg1", "/p/node_modules/pkg2"]);
    expect(collapsePaths(["/p/a", "/p/b", "/p/c"], ["/p"], 1)).toEqual(["/p/a", "/p/b", "/p/c"]);
    expect(collapsePaths(["/p/x/a"], ["/p"], 4)).toEqual(["/p/x/a"]);
  });
});
