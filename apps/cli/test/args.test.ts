import { describe, expect, test } from "bun:test";
import { parseArgs } from "../src/args.ts";

const agent = (argv: string[]) => {
  const command = parseArgs(argv);
  if (command.kind !== "agent") throw new Error(`expected the agent, got ${JSON.stringify(command)}`);
  return command.options;
};

describe("knightcode arguments", () => {
  test("app-server takes repeatable -e/--extension and --session-dir", () => {
    expect(
      parseArgs([
        "app-server",
        "-e",
        "a.ts",
        "--extension",
        "b.ts",
        "--extension=c.ts",
        "--session-dir",
        "/s",
      ]),
    ).toEqual({
      kind: "appServer",
      extensions: ["a.ts", "b.ts", "c.ts"],
      sessionDir: "/s",
      extensionFlags: [],
    });
    expect(parseArgs(["app-server"])).toEqual({ kind: "appServer", extensions: [], extensionFlags: [] });
  });

  test("--help and -h anywhere mean help (on stderr after app-server or acp); --version means version", () => {
    expect(parseArgs(["-h"])).toEqual({ kind: "help", to: "stdout" });
    expect(parseArgs(["-p", "hi", "--help"])).toEqual({ kind: "help", to: "stdout" });
    expect(parseArgs(["app-server", "--help"])).toEqual({ kind: "help", to: "stderr" });
    expect(parseArgs(["app-server", "-e", "x.ts", "-h"])).toEqual({ kind: "help", to: "stderr" });
    expect(parseArgs(["-h", "app-server"])).toEqual({ kind: "help", to: "stdout" });
    expect(parseArgs(["--version"])).toEqual({ kind: "version" });
  });

  test("no arguments start the interactive agent with terminal defaults", () => {
    expect(parseArgs([])).toEqual({
      kind: "agent",
      options: {
        print: false,
        mode: "text",
        continue: false,
        resume: false,
        extensions: [],
        noSession: false,
        extensionFlags: [],
        promptWords: [],
      },
    });
  });

  test("every agent flag, in both spellings, lands in the options", () => {
    expect(
      agent([
        "-p",
        "--mode",
        "json",
        "--model=mock/m-1",
        "--thinking",
        "high",
        "--approval-mode",
        "ask",
        "-e",
        "x.ts",
        "--extension",
        "y.ts",
        "--session-dir",
        "/s",
        "fix",
        "the bug",
      ]),
    ).toEqual({
      prompt: "fix the bug",
      print: true,
      mode: "json",
      continue: false,
      resume: false,
      model: { provider: "mock", id: "m-1" },
      thinking: "high",
      approvalMode: "ask",
      extensions: ["x.ts", "y.ts"],
      sessionDir: "/s",
      noSession: false,
      extensionFlags: [],
      promptWords: ["fix", "the bug"],
    });
    expect(agent(["--print", "-c"]).continue).toBe(true);
    expect(agent(["--continue"]).continue).toBe(true);
    expect(agent(["-r"]).resume).toBe(true);
    expect(agent(["--resume"]).resume).toBe(true);
    expect(agent(["--session", "abc"]).session).toBe("abc");
    expect(agent(["--no-session"]).noSession).toBe(true);
    // a model ID may itself contain slashes
    expect(agent(["--model", "openrouter/meta/llama"]).model).toEqual({
      provider: "openrouter",
      id: "meta/llama",
    });
    // after --, everything is prompt text
    expect(agent(["--", "-p", "--x"]).prompt).toBe("-p --x");
  });

  const errors: [string[], string][] = [
    [["-x"], "unknown option '-x'"],
    [["--mode", "yaml", "-p"], "--mode must be text or json, not 'yaml'"],
    [["--mode", "json"], "--mode json needs -p/--print"],
    [["--thinking", "huge"], "--thinking must be one of off, minimal, low, medium, high, xhigh, not 'huge'"],
    [["--approval-mode", "yolo"], "--approval-mode must be one of ask, autoEdit, fullAccess, not 'yolo'"],
    [["--model", "no-slash"], "--model must be <provider>/<id>, not 'no-slash'"],
    [["--model", "p/"], "--model must be <provider>/<id>, not 'p/'"],
    [["--session"], "--session needs a value"],
    [["--session-dir="], "--session-dir needs a value"],
    [["--print=yes"], "--print takes no value"],
    [["-c", "--session", "a"], "--continue and --session cannot be combined"],
    [["--no-session", "-c"], "--no-session cannot be combined with --continue"],
    [["-r", "-p"], "--resume needs the interactive terminal, not -p"],
    [["app-server", "-e"], "-e needs a value"],
    [["app-server", "-x"], "unknown option '-x'"],
    [["app-server", "--print"], "unknown option '--print'"],
    [["app-server", "stray"], "unknown option 'stray'"],
    [["---x"], "unknown option '---x'"],
    [["demo", "x"], "demo takes no arguments: x"],
    [["--sandbox=vm"], "--sandbox takes no value or =process, not 'vm'"],
    [["app-server", "--sandbox=yes"], "--sandbox takes no value or =process, not 'yes'"],
  ];
  for (const [argv, message] of errors) {
    test(`${argv.join(" ")} is an error: ${message}`, () => {
      expect(parseArgs(argv)).toEqual({ kind: "error", message });
    });
  }

  test("--sandbox routes tools into bubblewrap, --sandbox=process the whole process", () => {
    expect(parseArgs(["app-server", "--sandbox"])).toEqual({
      kind: "appServer",
      extensions: [],
      sandbox: "tools",
      extensionFlags: [],
    });
    expect(parseArgs(["app-server", "--sandbox=process"])).toEqual({
      kind: "appServer",
      extensions: [],
      sandbox: "process",
      extensionFlags: [],
    });
    const agent = parseArgs(["--sandbox", "-p", "hi"]);
    expect(agent.kind === "agent" && agent.options.sandbox).toBe("tools");
    const whole = parseArgs(["--sandbox=process"]);
    expect(whole.kind === "agent" && whole.options.sandbox).toBe("process");
  });

  test("acp takes the app server's options", () => {
    expect(parseArgs(["acp"])).toEqual({ kind: "acp", extensions: [], extensionFlags: [] });
    expect(parseArgs(["acp", "-e", "x.ts", "--session-dir=/t", "--sandbox"])).toEqual({
      kind: "acp",
      extensions: ["x.ts"],
      sessionDir: "/t",
      sandbox: "tools",
      extensionFlags: [],
    });
    expect(parseArgs(["acp", "--sandbox=process"])).toEqual({
      kind: "acp",
      extensions: [],
      sandbox: "process",
      extensionFlags: [],
    });
    expect(parseArgs(["acp", "--session-dir"])).toEqual({
      kind: "error",
      message: "--session-dir needs a value",
    });
    expect(parseArgs(["acp", "--model", "a/b"])).toEqual({
      kind: "error",
      message: "unknown option '--model'",
    });
    expect(parseArgs(["acp", "--help"])).toEqual({ kind: "help", to: "stderr" });
  });

  test("unknown long flags are kept for the extensions, each word after a bare one tentatively", () => {
    const options = agent(["-p", "--plan", "--ssh", "me@host", "--preset=fast", "fix", "it", "--frobnicate"]);
    expect(options.extensionFlags).toEqual([
      { name: "plan" },
      { name: "ssh", next: "me@host", nextWord: 0 },
      { name: "preset", inline: "fast" },
      { name: "frobnicate" },
    ]);
    // the word stays prompt text until the extensions say --ssh takes a value
    expect(options.promptWords).toEqual(["me@host", "fix", "it"]);
    expect(options.prompt).toBe("me@host fix it");
    expect(options.print).toBe(true);
    // a word starting with "-" is never a value; after "--" nothing is a flag
    expect(agent(["--ssh", "-p"]).extensionFlags).toEqual([{ name: "ssh" }]);
    expect(agent(["--", "--plan"]).extensionFlags).toEqual([]);
    expect(agent(["--no-sandbox"]).extensionFlags).toEqual([{ name: "no-sandbox" }]);
    // the agent's own flags are never an extension's
    expect(agent(["--no-session"]).extensionFlags).toEqual([]);
  });

  test("app-server and acp keep unknown long flags; the next word is always the value", () => {
    expect(parseArgs(["app-server", "--plan", "--ssh", "me@host", "--preset=fast", "-e", "x.ts"])).toEqual({
      kind: "appServer",
      extensions: ["x.ts"],
      extensionFlags: [
        { name: "plan" },
        { name: "ssh", inline: "me@host" },
        { name: "preset", inline: "fast" },
      ],
    });
    expect(parseArgs(["acp", "--plan"])).toEqual({
      kind: "acp",
      extensions: [],
      extensionFlags: [{ name: "plan" }],
    });
  });

  test("web listens on a free loopback port unless told, takes --open and the app-server options", () => {
    expect(parseArgs(["web"])).toEqual({
      kind: "web",
      open: false,
      extensions: [],
      extensionFlags: [],
      listen: { url: "ws://127.0.0.1:0", allowOrigins: [] },
    });
    expect(
      parseArgs(["web", "--open", "--listen", "ws://127.0.0.1:4500", "--token-file", "t", "-e", "x.ts"]),
    ).toEqual({
      kind: "web",
      open: true,
      extensions: ["x.ts"],
      extensionFlags: [],
      listen: { url: "ws://127.0.0.1:4500", tokenFile: "t", allowOrigins: [] },
    });
  });

  test("web refuses a listener a browser cannot reach", () => {
    expect(parseArgs(["web", "--listen", "unix:///tmp/k.sock"])).toEqual({
      kind: "error",
      message: "web serves a browser over ws:// or wss://, not 'unix:///tmp/k.sock'",
    });
    expect(parseArgs(["web", "--listen", "stdio://"])).toMatchObject({ kind: "error" });
  });
});

describe("remote flags", () => {
  test("app-server --listen gathers its companions; --allow-origin repeats", () => {
    expect(
      parseArgs([
        "app-server",
        "--listen",
        "wss://0.0.0.0:4500",
        "--tls-cert=c.pem",
        "--tls-key",
        "k.pem",
        "--token-file",
        "t",
        "--allow-origin",
        "https://a.example",
        "--allow-origin",
        "https://b.example",
      ]),
    ).toEqual({
      kind: "appServer",
      extensions: [],
      extensionFlags: [],
      listen: {
        url: "wss://0.0.0.0:4500",
        tlsCert: "c.pem",
        tlsKey: "k.pem",
        tokenFile: "t",
        allowOrigins: ["https://a.example", "https://b.example"],
      },
    });
  });

  test.each([
    [["app-server", "--tls-cert", "c.pem"], "--tls-cert needs --listen"],
    [["app-server", "--listen", "ws://127.0.0.1:0", "--listen", "unix:///x"], "--listen given twice"],
    [["acp", "--listen", "ws://127.0.0.1:0"], "acp speaks on stdin/stdout only"],
    [["--remote", "http://host:1"], "--remote takes ws://, wss:// or unix://"],
    [["--remote-token-env", "T"], "--remote-token-env needs --remote"],
    [["--remote", "ws://127.0.0.1:1", "--remote-token-env", "1BAD"], "takes a variable name"],
    [["--remote", "ws://127.0.0.1:1", "-e", "x.ts"], "--remote cannot be combined with -e"],
    [["--remote", "ws://127.0.0.1:1", "--no-session"], "--remote cannot be combined with --no-session"],
  ])("%p is refused: %s", (argv, message) => {
    const parsed = parseArgs(argv);
    expect(parsed.kind).toBe("error");
    expect(parsed.kind === "error" && parsed.message).toContain(message);
  });

  test("--replay-notifications and --replay-bytes set the replay buffer; a non-number is refused", () => {
    expect(parseArgs(["app-server", "--replay-notifications", "10", "--replay-bytes=2048"])).toMatchObject({
      kind: "appServer",
      replayLimits: { maxNotifications: 10, maxBytes: 2048 },
    });
    const bad = parseArgs(["app-server", "--replay-bytes", "-1"]);
    expect(bad.kind === "error" && bad.message).toContain("--replay-bytes takes a whole number");
  });

  test("--remote with -c and a token variable", () => {
    const parsed = parseArgs(["--remote", "wss://box:4500", "--remote-token-env", "BOX_TOKEN", "-c"]);
    expect(parsed.kind === "agent" && parsed.options).toMatchObject({
      remote: "wss://box:4500",
      remoteTokenEnv: "BOX_TOKEN",
      continue: true,
    });
  });
});
