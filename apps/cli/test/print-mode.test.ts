import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { textReply, toolCallReply } from "@knightcode/testkit";
import { Ajv } from "ajv";
import { PRINT_MODE_DECLINE } from "../src/print-mode.ts";
import { mockedAgent, requestText, runCli } from "./support/cli-run.ts";

const schema = JSON.parse(
  readFileSync(require.resolve("@knightcode/app-server-protocol/app-server.schema.json"), "utf8"),
) as { "x-serverNotifications": Record<string, { params: { $ref: string } }> };
const ajv = new Ajv({ strict: false });
ajv.addSchema(schema, "protocol");

/** Validates one `--mode json` line against the notification's schema; returns the method. */
function validateLine(line: string): { method: string; params: Record<string, unknown> } {
  const message = JSON.parse(line) as { method: string; params: Record<string, unknown> };
  const entry = schema["x-serverNotifications"][message.method];
  if (entry === undefined) throw new Error(`not a server notification: ${message.method}`);
  const validate = ajv.getSchema(`protocol${entry.params.$ref}`)!;
  if (!validate(message.params)) {
    throw new Error(`${message.method} fails its schema: ${JSON.stringify(validate.errors)}`);
  }
  return message;
}

function sessionFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
    .map((e) => join(e.parentPath, e.name));
}

describe("knightcode -p (print mode)", () => {
  test("prints only the final answer on stdout and exits 0", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "bash", arguments: { command: "echo tool-ran" } }),
      textReply("The answer is 42.", 5),
    );
    const run = await runCli(["-p", "what is the answer?"], { cwd: env.agent.cwd, env: env.env });
    expect(run).toEqual({ stdout: "The answer is 42.\n", stderr: "", code: 0 });
    expect(requestText(env.mock.requests[0]!.body)).toContain("what is the answer?");
    // the terminal default is fullAccess: the bash call ran without asking
    expect(requestText(env.mock.requests[1]!.body)).toContain("tool-ran");
  }, 30_000);

  test("an answer larger than the inline limit (sent as a payload reference) is printed whole", async () => {
    await using env = await mockedAgent();
    const long = `${"x".repeat(70_000)} the end`;
    env.mock.enqueue(textReply(long, 50));
    const run = await runCli(["-p", "write a lot"], { cwd: env.agent.cwd, env: env.env });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${long}\n`);
  }, 30_000);

  test("takes the prompt from piped stdin, after an argument when both are given", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("piped ok"), textReply("both ok"));
    const piped = await runCli(["-p"], { cwd: env.agent.cwd, env: env.env, stdin: "summarize this text\n" });
    expect(piped).toEqual({ stdout: "piped ok\n", stderr: "", code: 0 });
    expect(requestText(env.mock.requests[0]!.body)).toContain("summarize this text");
    const both = await runCli(["-p", "review:"], { cwd: env.agent.cwd, env: env.env, stdin: "the diff" });
    expect(both.stdout).toBe("both ok\n");
    expect(requestText(env.mock.requests[1]!.body)).toContain("review:\\n\\nthe diff");
  }, 30_000);

  test("without a prompt from either place: one line on stderr, exit 2, no model request", async () => {
    await using env = await mockedAgent();
    const run = await runCli(["-p"], { cwd: env.agent.cwd, env: env.env });
    expect(run).toEqual({
      stdout: "",
      stderr: "knightcode: print mode needs a prompt (an argument or piped stdin)\n",
      code: 2,
    });
    expect(env.mock.requests.length).toBe(0);
  });

  test("a failed turn exits 1 and names the error kind on stderr", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue({ error: { kind: "auth", message: "bad key for the mock" } });
    const run = await runCli(["-p", "hello"], { cwd: env.agent.cwd, env: env.env });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("knightcode: the turn failed (auth: ");
  }, 30_000);

  test("with --approval-mode ask, a gated call is declined with a message the model reads", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(
      toolCallReply({ name: "write", arguments: { path: "note.txt", content: "x" } }),
      textReply("I could not write it."),
    );
    const run = await runCli(["-p", "--approval-mode", "ask", "write note.txt"], {
      cwd: env.agent.cwd,
      env: env.env,
    });
    expect(run).toEqual({ stdout: "I could not write it.\n", stderr: "", code: 0 });
    expect(existsSync(join(env.agent.cwd, "note.txt"))).toBe(false);
    expect(requestText(env.mock.requests[1]!.body)).toContain(
      JSON.stringify(PRINT_MODE_DECLINE).slice(1, -1),
    );
  }, 30_000);

  test("--mode json prints every notification of the turn, one JSON line each, all valid against the schema", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(toolCallReply({ name: "ls", arguments: {} }), textReply("Listed.", 4));
    const run = await runCli(["-p", "--mode", "json", "list files"], { cwd: env.agent.cwd, env: env.env });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const lines = run.stdout.trimEnd().split("\n");
    const messages = lines.map(validateLine);
    const methods = messages.map((m) => m.method);
    expect(methods[0]).toBe("turn/started");
    expect(methods).toContain("item/agentMessage/delta");
    expect(methods).toContain("item/started");
    expect(methods.at(-1)).toBe("turn/completed");
    expect(methods.filter((m) => m === "item/agentMessage/delta").length).toBe(4);
    const tool = messages.find(
      (m) => m.method === "item/completed" && (m.params.item as { type: string }).type === "toolCall",
    );
    expect(tool?.params.item).toMatchObject({ toolName: "ls" });
  }, 30_000);

  test("-c continues the latest session of this directory; --session opens one by ID and by path", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("first"), textReply("second"), textReply("third"), textReply("fourth"));
    const first = await runCli(["-p", "--mode", "json", "remember the word zebra"], {
      cwd: env.agent.cwd,
      env: env.env,
    });
    const threadId = validateLine(first.stdout.split("\n")[0]!).params.threadId as string;
    const cont = await runCli(["-p", "-c", "which word?"], { cwd: env.agent.cwd, env: env.env });
    expect(cont).toEqual({ stdout: "second\n", stderr: "", code: 0 });
    expect(requestText(env.mock.requests[1]!.body)).toContain("remember the word zebra");
    const byId = await runCli(["-p", "--session", threadId, "again?"], { cwd: env.agent.cwd, env: env.env });
    expect(byId.stdout).toBe("third\n");
    expect(requestText(env.mock.requests[2]!.body)).toContain("which word?");
    const [file] = sessionFiles(env.agent.agentDir);
    expect(file).toContain(threadId);
    // a path outside the session folders is found in its own folder
    const byPath = await runCli(["-p", "--session", file!, "last?"], { cwd: env.agent.root, env: env.env });
    expect(byPath.stdout).toBe("fourth\n");
    expect(requestText(env.mock.requests[3]!.body)).toContain("again?");
    expect(sessionFiles(env.agent.agentDir).length).toBe(1);
  }, 60_000);

  test("--session naming no session: one line on stderr, exit 1, no model request", async () => {
    await using env = await mockedAgent();
    const run = await runCli(["-p", "--session", "no-such-thread", "hi"], {
      cwd: env.agent.cwd,
      env: env.env,
    });
    expect(run).toEqual({ stdout: "", stderr: "knightcode: no session 'no-such-thread'\n", code: 1 });
    expect(env.mock.requests.length).toBe(0);
  }, 30_000);

  test("--no-session writes nothing: no transcript in the agent dir, the project or a temp folder", async () => {
    await using env = await mockedAgent();
    // The child's temp folder is private to this test, so other processes' scratch
    // folders in the shared /tmp cannot make the check pass or fail.
    const privateTmp = mkdtempSync(join(tmpdir(), "kc-no-session-tmp-"));
    const agentBefore = readdirSync(env.agent.agentDir, { recursive: true }).sort();
    env.mock.enqueue(toolCallReply({ name: "ls", arguments: {} }), textReply("ephemeral"));
    const run = await runCli(["-p", "--no-session", "hi"], {
      cwd: env.agent.cwd,
      env: { ...env.env, TMPDIR: privateTmp },
    });
    expect(run).toEqual({ stdout: "ephemeral\n", stderr: "", code: 0 });
    expect(readdirSync(env.agent.agentDir, { recursive: true }).sort()).toEqual(agentBefore);
    expect(readdirSync(env.agent.cwd)).toEqual([]);
    expect(readdirSync(privateTmp).filter((n) => n.startsWith("knightcode-no-session-"))).toEqual([]);
    rmSync(privateTmp, { recursive: true, force: true });
    // and -c afterwards finds nothing to continue: a fresh thread without the earlier prompt
    env.mock.enqueue(textReply("fresh"));
    const cont = await runCli(["-p", "-c", "anything?"], { cwd: env.agent.cwd, env: env.env });
    expect(cont.stdout).toBe("fresh\n");
    expect(requestText(env.mock.requests[2]!.body)).not.toContain('"hi"');
  }, 30_000);
});
