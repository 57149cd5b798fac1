import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BASH_COMMANDS,
  emptyGrants,
  findCoveringGrant,
  grantCovers,
  type PrefixGrant,
  samePrefix,
  shellPrefix,
  withPrefixGrant,
  withToolGrant,
} from "@knightcode/approvals";
import { randomCommands } from "./random-commands.ts";
import { BASH_CASES } from "./shell-corpus.ts";

describe("session grants", () => {
  test("adding grants returns new values and leaves the old ones untouched", () => {
    const empty = emptyGrants();
    const withEdit = withToolGrant(empty, "edit");
    const withGit = withPrefixGrant(withEdit, { shell: "bash", prefix: ["git", "status"] });
    expect(empty).toEqual({ tools: [], prefixes: [] });
    expect(withEdit.tools).toEqual(["edit"]);
    expect(withGit.prefixes).toEqual([{ shell: "bash", prefix: ["git", "status"] }]);
    expect(withGit.tools).toEqual(["edit"]);
  });

  test("granting the same thing twice keeps one entry", () => {
    let grants = withToolGrant(withToolGrant(emptyGrants(), "edit"), "edit");
    grants = withPrefixGrant(grants, { shell: "bash", prefix: ["npm", "test"] });
    grants = withPrefixGrant(grants, { shell: "bash", prefix: ["npm", "test"] });
    grants = withPrefixGrant(grants, { shell: "powershell", prefix: ["npm", "test"] });
    expect(grants.tools).toEqual(["edit"]);
    expect(grants.prefixes).toHaveLength(2);
  });

  test("a stored grant does not change when the caller's prefix array is mutated", () => {
    const prefix = ["git", "status"];
    const grants = withPrefixGrant(emptyGrants(), { shell: "bash", prefix });
    prefix[1] = "reset";
    expect(grants.prefixes[0]!.prefix).toEqual(["git", "status"]);
  });
});

describe("grantCovers", () => {
  const gitStatus: PrefixGrant = { shell: "bash", prefix: ["git", "status"] };

  test("a git status grant covers git status --short but not git reset", () => {
    expect(grantCovers(gitStatus, "git status --short")).toBe(true);
    expect(grantCovers(gitStatus, "git reset --hard")).toBe(false);
  });

  test("matching is by analysed prefix, never by string prefix", () => {
    expect(grantCovers(gitStatus, "git status; rm -rf ~")).toBe(false);
    expect(grantCovers(gitStatus, "git statusx")).toBe(false);
    expect(grantCovers({ shell: "bash", prefix: ["git"] }, "git status")).toBe(false);
    expect(grantCovers({ shell: "bash", prefix: ["npm", "run"] }, "npm run build")).toBe(false);
  });

  test("an empty grant covers nothing, not even an empty command", () => {
    expect(grantCovers({ shell: "bash", prefix: [] }, "")).toBe(false);
    expect(grantCovers({ shell: "bash", prefix: [] }, "git status")).toBe(false);
  });

  test("grants are per shell: a bash grant does not cover PowerShell", () => {
    const grants = withPrefixGrant(emptyGrants(), { shell: "bash", prefix: ["npm", "test"] });
    expect(findCoveringGrant(grants, "npm test", "bash")).toBeDefined();
    expect(findCoveringGrant(grants, "npm test", "powershell")).toBeUndefined();
  });

  test("samePrefix compares word for word and treats null as no match", () => {
    expect(samePrefix(["a", "b"], ["a", "b"])).toBe(true);
    expect(samePrefix(["a", "b"], ["a", "bc"])).toBe(false);
    expect(samePrefix(["a"], ["a", "b"])).toBe(false);
    expect(samePrefix(null, null)).toBe(false);
  });
});

/**
 * The property, checked against real bash as the independent judge: for random
 * command strings, whenever a grant covers a command, bash runs exactly one program
 * and its argv begins with the granted prefix. Every known command is a stub on an
 * otherwise empty PATH that logs its argv, so nothing real runs.
 */
describe("property: a grant never covers a command whose real prefix differs", () => {
  const SEED = 20261130;
  const commands = randomCommands(SEED, 4000);
  const grants: PrefixGrant[] = [
    ...new Map(
      BASH_CASES.filter((c) => c.prefix !== null).map((c) => [
        c.prefix!,
        { shell: "bash" as const, prefix: c.prefix!.split(" ") },
      ]),
    ).values(),
  ];
  let dir = "";

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "approvals-oracle-"));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  test("commands without a prefix are covered by no grant", () => {
    const rejected = commands.filter((c) => shellPrefix(c, "bash") === null);
    expect(rejected.length).toBeGreaterThan(1000);
    const leaks = rejected.filter((c) => grants.some((g) => grantCovers(g, c)));
    expect(leaks).toEqual([]);
  });

  test("every covered command runs exactly the granted program and subcommand in real bash", async () => {
    const accepted = [...new Set(commands.filter((c) => shellPrefix(c, "bash") !== null))].slice(0, 600);
    expect(accepted.length).toBeGreaterThan(200);
    const runs = await runInBash(dir, accepted);
    const wrong: string[] = [];
    let covered = 0;
    for (const [i, command] of accepted.entries()) {
      const run = runs[i] ?? { calls: [], traced: 0 };
      const calls = run.calls;
      for (const grant of grants) {
        if (!grantCovers(grant, command)) continue;
        covered++;
        const argv = calls.length === 1 && run.traced === 1 ? normalize(calls[0]!) : null;
        if (argv === null || !grant.prefix.every((word, k) => argv[k] === word)) {
          wrong.push(
            `${JSON.stringify(command)} granted ${grant.prefix.join(" ")}; bash ran ${JSON.stringify(run)}`,
          );
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(covered).toBeGreaterThan(200);
  }, 120_000);
});

// git's only tolerated global flag sits between the program and its subcommand.
function normalize(argv: string[]): string[] {
  return argv[0] === "git" && argv[1] === "--no-pager" ? [argv[0], ...argv.slice(2)] : argv;
}

const UNIT = "\u001f";
const RECORD = "\u001e";

/** What bash did for each command: the stubs' argv lists and how many simple commands it traced. */
interface BashRun {
  calls: string[][];
  traced: number;
}

async function runInBash(dir: string, commands: readonly string[]): Promise<BashRun[]> {
  const bin = join(dir, "bin");
  const work = join(dir, "work");
  const log = join(dir, "calls.log");
  const trace = join(dir, "trace.log");
  for (const path of [bin, work]) Bun.spawnSync(["mkdir", "-p", path]);
  writeFileSync(log, "");
  const stub = `#!/bin/sh\nfor a in "\${0##*/}" "$@"; do printf '${UNIT}%s' "$a" >> "$LOG"; done\nprintf '${RECORD}' >> "$LOG"\n`;
  for (const name of [...BASH_COMMANDS.keys(), "__mark", "__unknown"]) {
    writeFileSync(join(bin, name), stub);
    chmodSync(join(bin, name), 0o755);
  }
  // Unknown programs are logged too, and xtrace counts every simple command, builtins included.
  const preamble = `command_not_found_handle() { __unknown "$@"; }\nexec 9>${JSON.stringify(trace)}\nBASH_XTRACEFD=9\nPS4='+ '\nset -x\n`;
  const body = commands.map((command, i) => `__mark ${i}\n${command}\n`).join("");
  writeFileSync(join(dir, "script.sh"), `${preamble}${body}__mark ${commands.length}\n`);
  const child = Bun.spawn(["/bin/bash", "--norc", "--noprofile", join(dir, "script.sh")], {
    cwd: work,
    env: { PATH: bin, LOG: log, HOME: work },
    stdout: "ignore",
    stderr: "ignore",
  });
  await child.exited;
  const runs: BashRun[] = [];
  let current: BashRun | null = null;
  for (const record of readFileSync(log, "utf8").split(RECORD)) {
    const argv = record.split(UNIT).slice(1);
    if (argv.length === 0) continue;
    if (argv[0] === "__mark") {
      current = { calls: [], traced: 0 };
      runs[Number(argv[1])] = current;
    } else current?.calls.push(argv);
  }
  let index = -1;
  for (const line of readFileSync(trace, "utf8").split("\n")) {
    const mark = /^\++ __mark (\d+)$/.exec(line);
    if (mark !== null) index = Number(mark[1]);
    else if (line.startsWith("+") && runs[index] !== undefined) runs[index]!.traced++;
  }
  // The final marker proves bash read every line as its own command.
  expect(runs[commands.length]).toEqual({ calls: [], traced: 0 });
  return runs;
}
