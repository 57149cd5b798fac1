/** How a known subcommand is recognized. */
export interface SubcommandSpec {
  /** True if the subcommand only reads (plan mode lets it through). */
  readonly readOnly: boolean;
  /** The subcommand takes a script or module name that becomes part of the prefix. */
  readonly name?: "any" | readonly string[];
  /** Options that make this subcommand run or write something else; any of them means no prefix. */
  readonly denyOptions?: readonly string[];
}

/** How a known command is recognized. */
export interface CommandSpec {
  /** For commands without subcommands: true if it only reads. */
  readonly readOnly: boolean;
  /** When present, a known subcommand is required and joins the prefix. */
  readonly subcommands?: ReadonlyMap<string, SubcommandSpec>;
  /** Harmless global flags allowed between the command and its subcommand; not part of the prefix. */
  readonly leadingFlags?: readonly string[];
  /** Options (long form matched exactly or as `--opt=value`) that run or write something else. */
  readonly denyOptions?: readonly string[];
  /** Short option letters that, in any `-abc` cluster, run or write something else. */
  readonly denyShortFlags?: string;
  /** `make`-style: at most one plain target, which joins the prefix; no other words. */
  readonly singleTarget?: boolean;
}

const sub = (readOnly: boolean, extra: Omit<SubcommandSpec, "readOnly"> = {}): SubcommandSpec => ({
  readOnly,
  ...extra,
});

// Options that make git write a file, run an external diff or text converter, or
// otherwise do more than the subcommand's name says.
const GIT_DENY = [
  "--output",
  "--ext-diff",
  "--textconv",
  "--exec",
  "--upload-pack",
  "--receive-pack",
  "--open-files-in-pager",
];

const GIT: CommandSpec = {
  readOnly: true,
  leadingFlags: ["--no-pager"],
  subcommands: new Map([
    ["status", sub(true, { denyOptions: GIT_DENY })],
    ["diff", sub(true, { denyOptions: GIT_DENY })],
    ["log", sub(true, { denyOptions: GIT_DENY })],
    ["show", sub(true, { denyOptions: GIT_DENY })],
    ["branch", sub(false, { denyOptions: GIT_DENY })],
    ["blame", sub(true, { denyOptions: GIT_DENY })],
    ["rev-parse", sub(true, { denyOptions: GIT_DENY })],
    ["ls-files", sub(true, { denyOptions: GIT_DENY })],
    ["shortlog", sub(true, { denyOptions: GIT_DENY })],
  ]),
};

// Package-manager settings that swap the shell or Node flags used to run the script, or
// point it at another folder's package.json (`--prefix`/`-C`, `--dir`, `--cwd`) so the
// granted name runs a different project's script.
const SCRIPT_DENY = [
  "--prefix",
  "-C",
  "--dir",
  "--cwd",
  "--script-shell",
  "--shell",
  "--node-options",
  "--userconfig",
  "--globalconfig",
  "--call",
  "-c",
];

const scriptRunner = (testName: string, extra: [string, SubcommandSpec][] = []): CommandSpec => ({
  readOnly: false,
  denyOptions: SCRIPT_DENY,
  subcommands: new Map([[testName, sub(false)], ["run", sub(false, { name: "any" })], ...extra]),
});

const NPM = scriptRunner("test", [["ls", sub(true)]]);
const PNPM = scriptRunner("test");
const YARN = scriptRunner("test");
const BUN: CommandSpec = {
  readOnly: false,
  subcommands: new Map([
    [
      "test",
      sub(false, { denyOptions: ["--preload", "-r", "--require", "--define", "--eval", "-e", "--cwd"] }),
    ],
    [
      "run",
      sub(false, { name: "any", denyOptions: ["--preload", "-r", "--require", "--eval", "-e", "--cwd"] }),
    ],
  ]),
};

// --config and -Z can point cargo at other compilers, runners and linkers;
// --manifest-path builds (and runs the build scripts of) another folder's crate.
const CARGO_DENY = ["--config", "-Z", "--manifest-path"];
const CARGO: CommandSpec = {
  readOnly: false,
  subcommands: new Map(
    ["build", "test", "check", "clippy", "fmt"].map((name) => [
      name,
      sub(false, { denyOptions: CARGO_DENY }),
    ]),
  ),
};

// Go accepts one or two dashes; -exec and -toolexec run arbitrary programs, and
// -ldflags can name an external linker (-extld); -C runs in another folder's module.
const GO_DENY = [
  "-C",
  "-exec",
  "--exec",
  "-toolexec",
  "--toolexec",
  "-overlay",
  "--overlay",
  "-ldflags",
  "--ldflags",
];
const GO: CommandSpec = {
  readOnly: false,
  subcommands: new Map([
    ["test", sub(false, { denyOptions: GO_DENY })],
    ["build", sub(false, { denyOptions: GO_DENY })],
    ["vet", sub(true, { denyOptions: [...GO_DENY, "-vettool", "--vettool"] })],
    ["list", sub(true, { denyOptions: GO_DENY })],
  ]),
};

const PYTHON: CommandSpec = {
  readOnly: false,
  subcommands: new Map([["-m", sub(false, { name: ["pytest", "unittest", "mypy"] })]]),
};

const RG_DENY = ["--pre", "--pre-glob", "--hostname-bin"];

const plain = (
  readOnly: boolean,
  extra: Omit<CommandSpec, "readOnly" | "subcommands"> = {},
): CommandSpec => ({
  readOnly,
  ...extra,
});

/** Commands understood in bash, with their known subcommands. Builtins are left out on purpose. */
export const BASH_COMMANDS: ReadonlyMap<string, CommandSpec> = new Map<string, CommandSpec>([
  ["git", GIT],
  ["ls", plain(true)],
  ["cat", plain(true)],
  ["head", plain(true)],
  ["tail", plain(true)],
  ["wc", plain(true)],
  ["grep", plain(true)],
  // --pre runs any program on every searched file; --hostname-bin runs one for hyperlinks.
  ["rg", plain(true, { denyOptions: RG_DENY })],
  [
    "find",
    plain(true, {
      denyOptions: [
        "-exec",
        "-execdir",
        "-ok",
        "-okdir",
        "-delete",
        "-fprint",
        "-fprint0",
        "-fprintf",
        "-fls",
      ],
    }),
  ],
  ["fd", plain(true, { denyOptions: ["--exec", "--exec-batch"], denyShortFlags: "xX" })],
  // -o writes the listing to a file; -R reruns tree in every directory with -o 00Tree.html.
  ["tree", plain(true, { denyShortFlags: "oR" })],
  ["stat", plain(true)],
  // -C / --compile writes a compiled magic file (`<name>.mgc`) into the cwd.
  ["file", plain(true, { denyOptions: ["--compile"], denyShortFlags: "C" })],
  ["du", plain(true)],
  ["df", plain(true)],
  ["diff", plain(true)],
  ["sort", plain(true, { denyOptions: ["--output", "--compress-program"], denyShortFlags: "o" })],
  ["which", plain(true)],
  ["basename", plain(true)],
  ["dirname", plain(true)],
  ["realpath", plain(true)],
  ["readlink", plain(true)],
  ["whoami", plain(true)],
  ["uname", plain(true)],
  ["date", plain(true, { denyOptions: ["--set"], denyShortFlags: "s" })],
  ["jq", plain(true)],
  ["tsc", plain(false)],
  ["pytest", plain(false)],
  ["make", plain(false, { singleTarget: true })],
  ["npm", NPM],
  ["pnpm", PNPM],
  ["yarn", YARN],
  ["bun", BUN],
  ["cargo", CARGO],
  ["go", GO],
  ["python", PYTHON],
  ["python3", PYTHON],
]);

/**
 * Commands understood in PowerShell: native programs whose parsing does not depend
 * on the shell, plus a few read-only cmdlets under their full names (aliases such
 * as `ls` or `cat` can be redefined by a profile, so they are not recognized).
 */
export const POWERSHELL_COMMANDS: ReadonlyMap<string, CommandSpec> = new Map<string, CommandSpec>([
  ["git", GIT],
  ["rg", plain(true, { denyOptions: RG_DENY })],
  ["tsc", plain(false)],
  ["pytest", plain(false)],
  ["npm", NPM],
  ["pnpm", PNPM],
  ["yarn", YARN],
  ["bun", BUN],
  ["cargo", CARGO],
  ["go", GO],
  ["Get-ChildItem", plain(true)],
  ["Get-Content", plain(true)],
  ["Get-Location", plain(true)],
  ["Get-Item", plain(true)],
  ["Test-Path", plain(true)],
  ["Select-String", plain(true)],
]);
