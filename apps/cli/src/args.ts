/**
 * Command-line parsing for the `knightcode` binary: a subcommand (`app-server`, `demo`)
 * named first, otherwise the terminal agent with its flags and an optional prompt.
 * Parsing is pure; `main.ts` dispatches on the result.
 */
import type {
  ApprovalMode,
  ExtensionFlagArg,
  ModelRef,
  ThinkingLevel,
} from "@knightcode/app-server-protocol";

/** Usage text, printed for `--help` (on stderr after `app-server` or `acp`). */
export const USAGE = `Usage:
  knightcode [options] [prompt]
      Start the interactive terminal agent in this directory, optionally with a first message.
  knightcode -p [options] [prompt]
      Print mode: run one turn, print the final answer on stdout and exit. The prompt may
      also come from piped stdin. Exit code 1 when the turn fails.
  knightcode app-server [--listen <url>] [-e <extension>]... [--session-dir <dir>] [--sandbox[=process]] [--<flag>]...
      Serve the app-server protocol: JSON lines on stdin/stdout (--listen stdio://, the
      default), on a unix socket (unix://PATH, mode 0600), or WebSocket (ws://IP:PORT,
      wss://IP:PORT with --tls-cert/--tls-key), which always needs a token: --token-file
      PATH, else one is made per start (its file is printed on stderr). --allow-origin
      <origin> (repeatable) lets that browser origin connect. --replay-notifications <n>
      and --replay-bytes <n> bound what each thread keeps for reconnecting clients
      (default 4096 and 8 MiB). See docs/remote.md.
  knightcode web [--listen ws://IP:PORT] [--open] [app-server options]
      Serve the web client at / of a WebSocket listener (default ws://127.0.0.1:0, a free
      port) and print its pairing link on stderr; --open opens it in the browser.
  knightcode acp [-e <extension>]... [--session-dir <dir>] [--sandbox[=process]] [--<flag>]...
      Serve the Agent Client Protocol on stdin/stdout (for Zed, JetBrains, Neovim, ...).
  knightcode export <session> [-o <file.html>] [--include-system]
      Write a session (thread ID or transcript file) as one self-contained HTML file:
      messages, reasoning, tool calls with diffs, compactions, token usage; the system
      prompt and tool schemas only with --include-system.
  knightcode login [provider]
      Save an API key for a provider in auth.json (asked with hidden input, or read from
      piped stdin); without a provider, list the providers that take one.
  knightcode demo
      Start the app server and run a short scripted conversation with it.
  knightcode install|remove|list|update [source] [-l] [--allow-scripts]
      Manage extension packages (npm:<name>[@version], git:<url>[@ref], local paths);
      the user's by default, the project's with -l. npm scripts run only with --allow-scripts.

Options:
  -p, --print                  one turn, answer on stdout, then exit
  --mode text|json             with -p: json prints every protocol notification of the turn
                               as one JSON line (default text)
  --remote <url>               attach to a running app server (ws://, wss://, unix://):
                               sessions, cwd and tools are the server's
  --remote-token-env <NAME>    the environment variable holding its token
                               (default KNIGHTCODE_REMOTE_TOKEN)
  -c, --continue               continue the latest session of this directory
  -w, --worktree [name]        work in a new git worktree of this repository (branch
                               knightcode/<name>); on exit it is removed if unchanged
  -r, --resume                 pick a session to resume
  --session <id|path>          open this session (thread ID or transcript file)
  --model <provider/id>        model for a new session (or switch an opened one)
  --thinking <level>           off|minimal|low|medium|high|xhigh
  --approval-mode <mode>       ask|autoEdit|fullAccess (terminal default fullAccess)
  -e, --extension <path>       load an extension (repeatable)
  --session-dir <dir>          store sessions in <dir> (one flat directory)
  --no-session                 write no session file at all
  --sandbox                    run every tool call in a bubblewrap sandbox over the project
  --sandbox=process            run all of KnightCode inside bubblewrap (project and a
                               private agent dir writable)
  --version                    print the version and exit
  -h, --help                   print this help and exit

Credentials and files:
  ANTHROPIC_API_KEY, OPENAI_API_KEY
                               keys of the built-in providers, read from the environment
  ~/.knightcode/agent/auth.json
                               keys saved by /login and knightcode login (mode 0600)
  ~/.knightcode/agent/models.json
                               your own providers: any OpenAI-compatible server (Ollama,
                               llama.cpp, vLLM, LM Studio), with models and an optional apiKey
  ~/.knightcode/agent/settings.json
                               defaultProvider/defaultModel, theme, approval and retry settings
  ~/.knightcode/agent/sessions/
                               the session folder: one JSONL transcript per session, in a
                               folder per project directory
  KNIGHTCODE_CODING_AGENT_DIR  use another agent directory instead of ~/.knightcode/agent
  A model you chose (settings, models.json) is never replaced by one an environment key
  unlocks.

Extension flags:
  Extensions register their own flags (pi's registerFlag), e.g. --plan from plan-mode or
  --ssh <user@host>. Any other --<name>, --<name>=<value> or --<name> <value> is kept for
  them: a boolean flag takes no value, a string flag takes =<value> or the next word. A
  flag no loaded extension registers is an error once the extensions have loaded.
`;

const THINKING_LEVELS: readonly ThinkingLevel[] = ["off", "minimal", "low", "medium", "high", "xhigh"];
const APPROVAL_MODES: readonly ApprovalMode[] = ["ask", "autoEdit", "fullAccess"];

/** What the terminal agent was asked to do. */
export interface AgentOptions {
  /** The positional prompt, words joined by spaces. */
  prompt?: string;
  print: boolean;
  mode: "text" | "json";
  continue: boolean;
  resume: boolean;
  session?: string;
  model?: ModelRef;
  thinking?: ThinkingLevel;
  approvalMode?: ApprovalMode;
  extensions: string[];
  sessionDir?: string;
  noSession: boolean;
  /** `--sandbox` (tools) or `--sandbox=process` (the whole process). */
  sandbox?: SandboxFlag;
  /** `--remote <url>`: attach to a running app server instead of starting one in-process. */
  remote?: string;
  /** `--remote-token-env <NAME>`: the variable holding the remote server's token. */
  remoteTokenEnv?: string;
  /** `-w [name]`, `--worktree[=name]`: a new thread in a server-owned git worktree. */
  worktree?: { name?: string };
  /** Flags this parser does not know, kept for the extensions (`--plan`, `--ssh host`). */
  extensionFlags: CliExtensionFlag[];
  /**
   * The prompt's words, including each word after a bare unknown flag: whether that word
   * is the flag's value or prompt text is known only once the extensions registered their
   * flags (`extension-flags.ts`). `prompt` is these words joined.
   */
  promptWords: string[];
}

/** An extension flag as the terminal agent keeps it: `nextWord` indexes `promptWords`. */
export interface CliExtensionFlag extends ExtensionFlagArg {
  nextWord?: number;
}

/** Where `--sandbox` puts the boundary. */
export type SandboxFlag = "tools" | "process";

/** A parsed command line. */
export type Command =
  /** Usage on `to`: stdout for the terminal agent, stderr after `app-server` or `acp`. */
  | { kind: "help"; to: "stdout" | "stderr" }
  | { kind: "version" }
  | { kind: "agent"; options: AgentOptions }
  | ({ kind: "appServer" } & ServerOptions)
  | ({ kind: "acp" } & ServerOptions)
  | ({ kind: "web"; open: boolean } & ServerOptions)
  | { kind: "demo" }
  | { kind: "login"; provider?: string }
  | { kind: "export"; session: string; output?: string; includeSystem: boolean }
  | { kind: "package"; argv: string[] }
  | { kind: "error"; message: string };

/** The options `app-server` and `acp` share. */
export interface ServerOptions {
  extensions: string[];
  sessionDir?: string;
  sandbox?: SandboxFlag;
  /** Unknown `--name[=value]`/`--name value` flags, kept for the extensions. */
  extensionFlags: ExtensionFlagArg[];
  /** `--listen` and its companions (app-server only). */
  listen?: ListenFlags;
  /** `--replay-notifications`, `--replay-bytes`: how much of each thread's stream is kept for reconnects. */
  replayLimits?: { maxNotifications?: number; maxBytes?: number };
}

/** A whole number for a limit flag, or the message saying what is wrong. */
function limitValue(name: string, value: string | undefined): number | string {
  const number = Number(value);
  return /^\d+$/.test(value ?? "") && Number.isSafeInteger(number)
    ? number
    : `${name} takes a whole number, not '${value}'`;
}

/** Where `app-server` listens, as given on the command line (checked when it starts). */
export interface ListenFlags {
  url: string;
  tokenFile?: string;
  tlsCert?: string;
  tlsKey?: string;
  allowOrigins: string[];
}

const LISTEN_FLAGS = new Set(["--listen", "--token-file", "--tls-cert", "--tls-key", "--allow-origin"]);

/** The stderr line of a usage error (exit code 2). */
export function usageLine(message: string): string {
  return `knightcode: ${message} (see knightcode --help)\n`;
}

/** Whether `name` (with its `--`) can be an extension's flag: a long name this parser does not know. */
function isExtensionFlagName(name: string): boolean {
  return /^--[A-Za-z0-9]/.test(name);
}

type Flag = { arg: string; name: string; inline: string | undefined };

/** Splits `--name=value`; short flags and bare words pass as they are. */
function splitFlag(arg: string): Flag {
  const eq = arg.indexOf("=");
  if (arg.startsWith("--") && eq > 0) return { arg, name: arg.slice(0, eq), inline: arg.slice(eq + 1) };
  return { arg, name: arg, inline: undefined };
}

/** Parses argv (without the runtime and script). Paths stay as given; the caller resolves them. */
export function parseArgs(argv: readonly string[]): Command {
  const [first, ...rest] = argv;
  if (argv.includes("--help") || argv.includes("-h")) {
    // a server's stdout carries protocol messages only, so its usage goes to stderr
    return { kind: "help", to: first === "app-server" || first === "acp" ? "stderr" : "stdout" };
  }
  switch (first) {
    case "install":
    case "remove":
    case "list":
    case "update":
      return { kind: "package", argv: [...argv] };
    case "app-server":
      return parseAppServer(rest);
    case "acp":
      return parseAcp(rest);
    case "web":
      return parseWeb(rest);
    case "export":
      return parseExport(rest);
    case "login":
      if (rest.length > 1 || rest[0]?.startsWith("-"))
        return { kind: "error", message: `login takes one provider name: ${rest.join(" ")}` };
      return rest[0] === undefined ? { kind: "login" } : { kind: "login", provider: rest[0] };
    case "demo":
      return rest.length === 0
        ? { kind: "demo" }
        : { kind: "error", message: `demo takes no arguments: ${rest[0]}` };
    default:
      return parseAgent(argv);
  }
}

function parseExport(rest: readonly string[]): Command {
  let session: string | undefined;
  let output: string | undefined;
  let includeSystem = false;
  for (let i = 0; i < rest.length; i++) {
    const { name, inline } = splitFlag(rest[i]!);
    if (name === "-o" || name === "--output") {
      output = inline ?? rest[++i];
      if (output === undefined || output === "")
        return { kind: "error", message: `${name} needs a file name` };
    } else if (name === "--include-system" && inline === undefined) includeSystem = true;
    else if (name.startsWith("-")) return { kind: "error", message: `export does not take ${name}` };
    else if (session === undefined) session = rest[i]!;
    else return { kind: "error", message: `export takes one session: ${rest[i]}` };
  }
  if (session === undefined)
    return { kind: "error", message: "export needs a session (its ID or transcript file)" };
  return { kind: "export", session, includeSystem, ...(output === undefined ? {} : { output }) };
}

/** `--sandbox` and `--sandbox=process`; an error message for any other value. */
export function sandboxFlag(inline: string | undefined): SandboxFlag | { error: string } {
  if (inline === undefined) return "tools";
  if (inline === "process") return "process";
  return { error: `--sandbox takes no value or =process, not '${inline}'` };
}

/** `app-server`'s and `acp`'s options while they are parsed; the listen flags are checked together at the end. */
type ServerOptionsDraft = Omit<ServerOptions, "listen"> & { listenValues: Map<string, string[]> };

/**
 * One option of `app-server` and `acp`. `value`: `required` takes `=<value>` or the next
 * word, `inline` only `=<value>` (or nothing). `apply` stores it or says why it is wrong.
 * A new server option is one more row here.
 */
interface ServerFlag {
  names: readonly string[];
  value: "required" | "inline";
  apply(options: ServerOptionsDraft, value: string | undefined): string | undefined;
}

const SERVER_FLAGS: readonly ServerFlag[] = [
  ...[...LISTEN_FLAGS].map(
    (name): ServerFlag => ({
      names: [name],
      value: "required",
      apply: (options, value) => {
        if (name !== "--allow-origin" && options.listenValues.has(name)) return `${name} given twice`;
        options.listenValues.set(name, [...(options.listenValues.get(name) ?? []), value!]);
        return undefined;
      },
    }),
  ),
  {
    names: ["-e", "--extension"],
    value: "required",
    apply: (options, value) => {
      options.extensions.push(value!);
      return undefined;
    },
  },
  {
    names: ["--session-dir"],
    value: "required",
    apply: (options, value) => {
      options.sessionDir = value;
      return undefined;
    },
  },
  ...(
    [
      ["--replay-notifications", "maxNotifications"],
      ["--replay-bytes", "maxBytes"],
    ] as const
  ).map(
    ([name, key]): ServerFlag => ({
      names: [name],
      value: "required",
      apply: (options, value) => {
        const limit = limitValue(name, value);
        if (typeof limit === "string") return limit;
        options.replayLimits = { ...options.replayLimits, [key]: limit };
        return undefined;
      },
    }),
  ),
  {
    names: ["--sandbox"],
    value: "inline",
    apply: (options, value) => {
      const flag = sandboxFlag(value);
      if (typeof flag === "object") return flag.error;
      options.sandbox = flag;
      return undefined;
    },
  },
];

const SERVER_FLAG_BY_NAME = new Map(SERVER_FLAGS.flatMap((flag) => flag.names.map((name) => [name, flag])));

function parseAppServer(rest: readonly string[]): Command {
  const draft: ServerOptionsDraft = { extensions: [], extensionFlags: [], listenValues: new Map() };
  for (let i = 0; i < rest.length; i++) {
    const { arg, name, inline } = splitFlag(rest[i]!);
    const flag = SERVER_FLAG_BY_NAME.get(name);
    if (flag !== undefined) {
      const value = flag.value === "required" ? (inline ?? rest[++i]) : inline;
      if (flag.value === "required" && (value === undefined || value === "")) {
        return { kind: "error", message: `${name} needs a value` };
      }
      const problem = flag.apply(draft, value);
      if (problem !== undefined) return { kind: "error", message: problem };
      continue;
    }
    // the terminal agent's own options are never an extension's, here either
    if (isExtensionFlagName(name) && !VALUE_FLAGS.has(name) && !BOOLEAN_FLAGS.has(name)) {
      // no words here: the word after an extension flag can only be its value
      const following = rest[i + 1];
      const value = inline ?? (following?.startsWith("-") === false ? rest[++i] : undefined);
      draft.extensionFlags.push({ name: name.slice(2), ...(value === undefined ? {} : { inline: value }) });
      continue;
    }
    return { kind: "error", message: `unknown option '${arg}'` };
  }
  const { listenValues, ...options } = draft;
  const listen = listenFlags(listenValues);
  if (typeof listen === "string") return { kind: "error", message: listen };
  return { kind: "appServer", ...options, ...(listen === undefined ? {} : { listen }) };
}

/** The listen flags as one value; an error message when companions come without `--listen`. */
function listenFlags(values: Map<string, string[]>): ListenFlags | string | undefined {
  const url = values.get("--listen")?.[0];
  if (url === undefined) {
    const [stray] = values.keys();
    return stray === undefined ? undefined : `${stray} needs --listen`;
  }
  const one = (name: string) => values.get(name)?.[0];
  const tokenFile = one("--token-file");
  const tlsCert = one("--tls-cert");
  const tlsKey = one("--tls-key");
  return {
    url,
    allowOrigins: values.get("--allow-origin") ?? [],
    ...(tokenFile === undefined ? {} : { tokenFile }),
    ...(tlsCert === undefined ? {} : { tlsCert }),
    ...(tlsKey === undefined ? {} : { tlsKey }),
  };
}

/** Worktree names, as the server validates them. */
const WORKTREE_NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

const BOOLEAN_FLAGS = new Set([
  "-p",
  "--print",
  "-c",
  "--continue",
  "-r",
  "--resume",
  "--no-session",
  "--version",
]);

const VALUE_FLAGS = new Set([
  "--mode",
  "--session",
  "--model",
  "--thinking",
  "--approval-mode",
  "-e",
  "--extension",
  "--session-dir",
  "--remote",
  "--remote-token-env",
]);

function parseAgent(argv: readonly string[]): Command {
  const options: AgentOptions = {
    print: false,
    mode: "text",
    continue: false,
    resume: false,
    extensions: [],
    noSession: false,
    extensionFlags: [],
    promptWords: [],
  };
  const words: string[] = [];
  let onlyWords = false;
  for (let i = 0; i < argv.length; i++) {
    const raw = argv[i]!;
    if (onlyWords || !raw.startsWith("-") || raw === "-") {
      words.push(raw);
      continue;
    }
    if (raw === "--") {
      onlyWords = true;
      continue;
    }
    const { arg, name, inline } = splitFlag(raw);
    if (VALUE_FLAGS.has(name)) {
      const value = inline ?? argv[++i];
      if (value === undefined || value === "") return { kind: "error", message: `${name} needs a value` };
      const problem = applyValue(options, name, value);
      if (problem !== undefined) return { kind: "error", message: problem };
      continue;
    }
    if (name === "-w" || name === "--worktree") {
      // the name is optional: taken from `=name`, or from the next word when it is a valid
      // name (prompt text with spaces never is)
      const next = argv[i + 1];
      const value = inline ?? (next !== undefined && WORKTREE_NAME.test(next) ? argv[++i] : undefined);
      if (value !== undefined && !WORKTREE_NAME.test(value))
        return { kind: "error", message: `${name}: a worktree name matches [a-z0-9][a-z0-9-]{0,63}` };
      options.worktree = value === undefined ? {} : { name: value };
      continue;
    }
    if (name === "--sandbox") {
      const flag = sandboxFlag(inline);
      if (typeof flag === "object") return { kind: "error", message: flag.error };
      options.sandbox = flag;
      continue;
    }
    if (!BOOLEAN_FLAGS.has(name) && isExtensionFlagName(name)) {
      const flag: CliExtensionFlag = { name: name.slice(2), ...(inline === undefined ? {} : { inline }) };
      const following = argv[i + 1];
      if (inline === undefined && following !== undefined && !following.startsWith("-")) {
        // a string flag's value or prompt text: decided after the extensions registered theirs
        flag.next = following;
        flag.nextWord = words.length;
        words.push(following);
        i++;
      }
      options.extensionFlags.push(flag);
      continue;
    }
    if (inline !== undefined) return { kind: "error", message: `${name} takes no value` };
    switch (name) {
      case "-p":
      case "--print":
        options.print = true;
        break;
      case "-c":
      case "--continue":
        options.continue = true;
        break;
      case "-r":
      case "--resume":
        options.resume = true;
        break;
      case "--no-session":
        options.noSession = true;
        break;
      case "--version":
        return { kind: "version" };
      default:
        return { kind: "error", message: `unknown option '${arg}'` };
    }
  }
  options.promptWords = words;
  if (words.length > 0) options.prompt = words.join(" ");
  const conflict = conflictOf(options);
  return conflict === undefined ? { kind: "agent", options } : { kind: "error", message: conflict };
}

/** Stores one flag value, or says why it is not acceptable. */
function applyValue(options: AgentOptions, name: string, value: string): string | undefined {
  switch (name) {
    case "--mode":
      if (value !== "text" && value !== "json") return `--mode must be text or json, not '${value}'`;
      options.mode = value;
      return undefined;
    case "--session":
      options.session = value;
      return undefined;
    case "--model": {
      const slash = value.indexOf("/");
      if (slash <= 0 || slash === value.length - 1) {
        return `--model must be <provider>/<id>, not '${value}'`;
      }
      options.model = { provider: value.slice(0, slash), id: value.slice(slash + 1) };
      return undefined;
    }
    case "--thinking":
      if (!(THINKING_LEVELS as readonly string[]).includes(value)) {
        return `--thinking must be one of ${THINKING_LEVELS.join(", ")}, not '${value}'`;
      }
      options.thinking = value as ThinkingLevel;
      return undefined;
    case "--approval-mode":
      if (!(APPROVAL_MODES as readonly string[]).includes(value)) {
        return `--approval-mode must be one of ${APPROVAL_MODES.join(", ")}, not '${value}'`;
      }
      options.approvalMode = value as ApprovalMode;
      return undefined;
    case "--session-dir":
      options.sessionDir = value;
      return undefined;
    case "--remote":
      if (!/^(wss?|unix):\/\/./.test(value))
        return `--remote takes ws://, wss:// or unix:// URL, not '${value}'`;
      options.remote = value;
      return undefined;
    case "--remote-token-env":
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value))
        return `--remote-token-env takes a variable name, not '${value}'`;
      options.remoteTokenEnv = value;
      return undefined;
    default:
      options.extensions.push(value);
      return undefined;
  }
}

/** Flags that cannot be combined. */
function conflictOf(options: AgentOptions): string | undefined {
  const pickers = [
    options.continue ? "--continue" : undefined,
    options.resume ? "--resume" : undefined,
    options.session !== undefined ? "--session" : undefined,
  ].filter((f) => f !== undefined);
  if (pickers.length > 1) return `${pickers[0]} and ${pickers[1]} cannot be combined`;
  if (options.noSession && pickers.length > 0) return `--no-session cannot be combined with ${pickers[0]}`;
  if (options.mode === "json" && !options.print) return "--mode json needs -p/--print";
  if (options.resume && options.print) return "--resume needs the interactive terminal, not -p";
  if (options.remoteTokenEnv !== undefined && options.remote === undefined)
    return "--remote-token-env needs --remote";
  if (options.remote !== undefined) {
    // what the server runs with is decided where it runs
    const local = [
      options.extensions.length > 0 ? "-e" : undefined,
      options.sessionDir !== undefined ? "--session-dir" : undefined,
      options.noSession ? "--no-session" : undefined,
      options.sandbox !== undefined ? "--sandbox" : undefined,
    ].filter((f) => f !== undefined);
    if (local.length > 0)
      return `--remote cannot be combined with ${local[0]}: start the server with it instead`;
  }
  return undefined;
}

/** Where `knightcode web` listens without `--listen`: loopback, on a free port. */
export const WEB_DEFAULT_LISTEN = "ws://127.0.0.1:0";

/** `web`: the app-server options (on a WebSocket listener) plus `--open`. */
function parseWeb(rest: readonly string[]): Command {
  const open = rest.includes("--open");
  const parsed = parseAppServer(rest.filter((arg) => arg !== "--open"));
  if (parsed.kind !== "appServer") return parsed;
  const { kind: _kind, listen, ...options } = parsed;
  const url = listen?.url ?? WEB_DEFAULT_LISTEN;
  if (!/^wss?:\/\//.test(url)) {
    return { kind: "error", message: `web serves a browser over ws:// or wss://, not '${url}'` };
  }
  return { kind: "web", open, ...options, listen: { allowOrigins: [], ...listen, url } };
}

/** `knightcode acp` takes the app server's options: the same host behind another protocol. */
function parseAcp(rest: readonly string[]): Command {
  const parsed = parseAppServer(rest);
  if (parsed.kind !== "appServer") return parsed;
  if (parsed.listen !== undefined)
    return { kind: "error", message: "acp speaks on stdin/stdout only; --listen is for app-server" };
  const { kind: _kind, ...options } = parsed;
  return { kind: "acp", ...options };
}
