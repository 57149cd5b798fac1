/** Command-line parsing for the `knightcode` binary. */

/** Usage text, printed on stderr. */
export const USAGE = `Usage:
  knightcode app-server [-e <extension>]... [--session-dir <dir>]
      Serve the JSON-lines app-server protocol on stdin/stdout.
      -e, --extension <path>   load an extension in every thread (repeatable)
      --session-dir <dir>      store sessions in <dir> (one flat directory)
  knightcode demo
      Start the app server and run a short scripted conversation with it.
  knightcode --help | -h
`;

/** A parsed command line. */
export type Command =
  | { kind: "help" }
  | { kind: "appServer"; extensions: string[]; sessionDir?: string }
  | { kind: "demo" }
  | { kind: "error"; message: string };

/** Parses argv (without the runtime and script). Extension paths stay as given; the caller resolves them. */
export function parseArgs(argv: readonly string[]): Command {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h") return { kind: "help" };
  if (rest.includes("--help") || rest.includes("-h")) return { kind: "help" };
  if (command === "demo") {
    return rest.length === 0
      ? { kind: "demo" }
      : { kind: "error", message: `demo takes no arguments: ${rest[0]}` };
  }
  if (command !== "app-server") return { kind: "error", message: `unknown command '${command}'` };
  const extensions: string[] = [];
  let sessionDir: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const eq = arg.indexOf("=");
    const [flag, inline] =
      arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    if (flag === "-e" || flag === "--extension" || flag === "--session-dir") {
      const value = inline ?? rest[++i];
      if (value === undefined || value === "") return { kind: "error", message: `${flag} needs a value` };
      if (flag === "--session-dir") sessionDir = value;
      else extensions.push(value);
      continue;
    }
    return { kind: "error", message: `unknown option '${arg}'` };
  }
  return sessionDir === undefined
    ? { kind: "appServer", extensions }
    : { kind: "appServer", extensions, sessionDir };
}
