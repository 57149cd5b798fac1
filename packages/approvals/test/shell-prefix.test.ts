import { describe, expect, test } from "bun:test";
import { analyzeShellCommand, grantCovers, type ShellKind, shellPrefix } from "@knightcode/approvals";
import { POWERSHELL_ATTACKS, POWERSHELL_CASES } from "./powershell-corpus.ts";
import { BASH_ATTACKS, BASH_CASES } from "./shell-corpus.ts";

const label = (command: string): string =>
  JSON.stringify(command.length > 80 ? `${command.slice(0, 77)}...` : command);

function checkCases(shell: ShellKind, cases: typeof BASH_CASES): void {
  for (const { command, prefix } of cases) {
    test(`${label(command)} -> ${prefix ?? "no prefix"}`, () => {
      expect(shellPrefix(command, shell)).toEqual(prefix === null ? null : prefix.split(" "));
    });
  }
}

function checkAttacks(shell: ShellKind, attacks: typeof BASH_ATTACKS): void {
  for (const { command, target } of attacks) {
    test(`${label(command)} gets no prefix and no ${target} grant`, () => {
      expect(shellPrefix(command, shell)).toBeNull();
      expect(grantCovers({ shell, prefix: target.split(" ") }, command)).toBe(false);
    });
  }
}

describe("corpus size", () => {
  test("at least 200 shell commands, at least half of them attacks", () => {
    const total =
      BASH_CASES.length + BASH_ATTACKS.length + POWERSHELL_CASES.length + POWERSHELL_ATTACKS.length;
    const attacks = BASH_ATTACKS.length + POWERSHELL_ATTACKS.length;
    expect(total).toBeGreaterThanOrEqual(200);
    expect(attacks * 2).toBeGreaterThanOrEqual(total);
  });

  test("every attack's target is a prefix the analyser really grants", () => {
    const targets = new Set([...BASH_ATTACKS, ...POWERSHELL_ATTACKS].map((a) => a.target));
    const legit = new Set(BASH_CASES.flatMap((c) => (c.prefix === null ? [] : [c.prefix])));
    const missing = [...targets].filter((t) => !legit.has(t) && t !== "bun run");
    expect(missing).toEqual([]);
  });
});

describe("bash prefixes", () => checkCases("bash", BASH_CASES));
describe("bash attacks", () => checkAttacks("bash", BASH_ATTACKS));
describe("PowerShell prefixes", () => checkCases("powershell", POWERSHELL_CASES));
describe("PowerShell attacks", () => checkAttacks("powershell", POWERSHELL_ATTACKS));

describe("PowerShell is at least as strict as bash", () => {
  test("no bash attack gets a PowerShell prefix", () => {
    const leaks = BASH_ATTACKS.filter(({ command }) => shellPrefix(command, "powershell") !== null);
    expect(leaks.map((a) => a.command)).toEqual([]);
  });
});

describe("read-only classification", () => {
  test("git status is read-only, git branch and npm test are not", () => {
    expect(analyzeShellCommand("git status", "bash")?.readOnly).toBe(true);
    expect(analyzeShellCommand("git branch -D main", "bash")?.readOnly).toBe(false);
    expect(analyzeShellCommand("npm test", "bash")?.readOnly).toBe(false);
    expect(analyzeShellCommand("rg foo", "bash")?.readOnly).toBe(true);
  });

  test("a non-string command has no analysis", () => {
    expect(analyzeShellCommand(42 as unknown as string, "bash")).toBeNull();
  });

  test("names that exist on Object.prototype are not commands", () => {
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(shellPrefix(`${name} status`, "bash")).toBeNull();
      expect(shellPrefix(`git ${name}`, "bash")).toBeNull();
    }
  });
});
