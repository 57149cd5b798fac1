import { describe, expect, test } from "bun:test";
import {
  bwrapArgs,
  collapsePaths,
  isWithin,
  type Mount,
  type MountPlanInput,
  planMounts,
  SandboxUnavailableError,
  unsafeMount,
} from "../src/index.ts";
import { exposedHomeSecrets } from "../src/mount-plan.ts";

const base: MountPlanInput = {
  cwd: "/work/project",
  homes: ["/home/u"],
  hidden: [],
  hiddenFiles: [],
  extraWritable: [],
  readable: [],
  runtime: [],
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
    const args = bwrapArgs({
      ...base,
      readable: ["/home/u/tools"],
      runtime: ["/home/u/.bun/bin/bun"],
      extraWritable: ["/data/cache"],
    });
    expect(indexOf(args, "--ro-bind-try", "/home/u/tools", "/home/u/tools")).toBeGreaterThan(
      indexOf(args, "--tmpfs", "/home/u"),
    );
    expect(indexOf(args, "--ro-bind-try", "/home/u/.bun/bin/bun", "/home/u/.bun/bin/bun")).toBeGreaterThan(
      indexOf(args, "--tmpfs", "/home/u"),
    );
    expect(indexOf(args, "--bind", "/data/cache", "/data/cache")).toBeGreaterThan(0);
  });
});

/** The error `bwrapArgs` throws for a plan, or undefined when it plans the mounts. */
function refusal(plan: MountPlanInput): SandboxUnavailableError | undefined {
  try {
    bwrapArgs(plan);
    return undefined;
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return error;
    throw error;
  }
}

describe("the mount guard: no host bind over a private mount", () => {
  test("a plan whose runtime binds / after the private /tmp and home is refused with unsafeMounts", () => {
    // what a compiled binary planned when the runtime was derived from its virtual module folder
    const error = refusal({ ...base, runtime: ["/usr/bin/bun", "/"] });
    expect(error?.failure).toBe("unsafeMounts");
    expect(error?.message).toStartWith(
      "Sandbox unavailable (unsafeMounts): the sandbox's mounts were refused: `--ro-bind-try / /` would show the host's files over the private `--dev /dev`.",
    );
    expect(error?.message).toContain("sandbox.extraReadable");
  });

  test("a root bind after private mounts is found in a hand-made list, and a tmpfs laid again on top makes it safe", () => {
    const root: Mount = { args: ["--ro-bind", "/", "/"], dest: "/", shows: "host" };
    const tmp: Mount = { args: ["--tmpfs", "/tmp"], dest: "/tmp", shows: "private" };
    const home: Mount = { args: ["--tmpfs", "/home/u"], dest: "/home/u", shows: "private" };
    const project: Mount = { args: ["--bind", "/home/u/p", "/home/u/p"], dest: "/home/u/p", shows: "host" };
    expect(unsafeMount([root, tmp, home, project])).toBeUndefined();
    expect(unsafeMount([root, tmp, home, project, root])).toEqual({ hidden: tmp, by: root });
    expect(unsafeMount([root, tmp, home, root, tmp, home])).toBeUndefined();
  });

  test("each hidden path is guarded: the agent dir, a session dir, /tmp and the home", () => {
    const agentDir = "/home/u/.knightcode/agent";
    const sessions = "/data/sessions";
    // a path inside a hidden dir puts its tmpfs early (so the path shows through); a second
    // path holding the hidden dir would then show it again
    const cases: [Partial<MountPlanInput>, string][] = [
      [{ readable: [`${agentDir}/bin`, "/home/u"] }, agentDir],
      [{ extraWritable: [`${sessions}/out`, "/data"] }, sessions],
      [{ extraWritable: ["/tmp"] }, "/tmp"],
      [{ runtime: ["/home"] }, "/home/u"],
    ];
    for (const [plan, hidden] of cases) {
      const error = refusal({ ...base, hidden: [agentDir, sessions], ...plan });
      expect([hidden, error?.message]).toEqual([
        hidden,
        expect.stringContaining(`over the private \`--tmpfs ${hidden}\``),
      ]);
    }
  });

  test("a home is shown on purpose when the cwd or an extra path holds it; its hidden dirs stay hidden", () => {
    const agentDir = "/home/u/.knightcode/agent";
    const inHome = bwrapArgs({ ...base, cwd: "/home/u", hidden: [agentDir] });
    expect(indexOf(inHome, "--tmpfs", agentDir)).toBeGreaterThan(
      indexOf(inHome, "--bind", "/home/u", "/home/u"),
    );
    expect(refusal({ ...base, readable: ["/home"], hidden: [agentDir] })).toBeUndefined();
    // the helper's runtime never counts as a choice to show the home
    expect(refusal({ ...base, runtime: ["/home/u"] })?.failure).toBe("unsafeMounts");
  });

  test("hidden dirs come last: a read-only hard-link folder holding a session dir does not show it again", () => {
    const mounts = planMounts({
      ...base,
      hidden: ["/work/project/.sessions"],
      readOnly: ["/work/project"],
    });
    expect(mounts.at(-1)?.args).toEqual(["--tmpfs", "/work/project/.sessions"]);
    expect(unsafeMount(mounts)).toBeUndefined();
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
