/**
 * `knightcode demo`: the main job on a fresh machine. Starts `knightcode app-server` as
 * a child process, talks to it over pipes like any client would, and prints what
 * happens: a thread in `ask` mode, a streamed reply, a tool call that needs no approval,
 * and a file write that does: the approval request (tool, input, offered decisions), the
 * script's answer, then the file change the server reports. Without credentials the
 * server picks its offline demo model; with a key or a models.json it uses the real model.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AppServerClient,
  type FileChange,
  type ServerNotification,
  StreamTransport,
  type ThreadItem,
} from "@knightcode/app-server-protocol";
import { selfCommand } from "./self-command.ts";

const useColor = process.stdout.isTTY === true && process.env.NO_COLOR === undefined;
const paint = (code: string, text: string): string => (useColor ? `\u001b[${code}m${text}\u001b[0m` : text);
const dim = (t: string) => paint("2", t);
const bold = (t: string) => paint("1", t);
const cyan = (t: string) => paint("36", t);
const yellow = (t: string) => paint("33", t);
const green = (t: string) => paint("32", t);
const out = (text: string): void => {
  process.stdout.write(text);
};

/** The file the last turn asks for; writing it needs an approval in `ask` mode. */
export const DEMO_NOTE_FILE = "demo-note.txt";

const PROMPTS = [
  "Hello! In one sentence, what can you do?",
  "Please list the files in this project folder and summarize them.",
  `Create a file named ${DEMO_NOTE_FILE} with a one-line note about this project.`,
];

/** A throwaway project so the demo's tools have something to look at and nothing real to change. */
function demoProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "knightcode-demo-"));
  writeFileSync(join(dir, "README.md"), "# Demo project\n\nA tiny project for the KnightCode demo.\n");
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "src", "hello.ts"), 'export const hello = (name: string) => "Hello, " + name;\n');
  return dir;
}

/** A file change as the server reports it, with the first lines of its diff. */
function describeFileChange(change: FileChange): string {
  const head = `    ${green("✎")} file change: ${bold(change.kind)} ${change.path}\n`;
  if (change.diff === undefined) return head;
  const lines = change.diff.split("\n").filter((l) => l !== "");
  const shown = lines.slice(0, 8).map((l) => `      ${dim(l)}\n`);
  const more = lines.length > 8 ? `      ${dim(`… ${lines.length - 8} more lines`)}\n` : "";
  return head + shown.join("") + more;
}

function summarize(value: unknown, max = 100): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  const flat = (text ?? "").replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** Runs the scripted conversation; resolves with the process exit code. */
export async function runDemo(): Promise<number> {
  out(
    `${bold("KnightCode demo")} ${dim("— a scripted client talking to `knightcode app-server` over pipes")}\n\n`,
  );
  const spawnedAt = performance.now();
  const child = Bun.spawn([...selfCommand(), "app-server"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  let serverLog = "";
  void (async () => {
    for await (const chunk of child.stderr) serverLog += new TextDecoder().decode(chunk);
  })();
  const client = new AppServerClient(new StreamTransport({ readable: child.stdout, writable: child.stdin }));
  await client.connect();
  try {
    const init = await client.initialize({ clientInfo: { name: "knightcode-demo", version: "0.1.0" } });
    const readyMs = performance.now() - spawnedAt;
    out(
      `${cyan("→")} app server pid ${child.pid} ready in ${readyMs.toFixed(0)} ms: ` +
        `${init.serverInfo.name} ${init.serverInfo.version} on ${init.platform.os}/${init.platform.arch}\n`,
    );

    const cwd = demoProject();
    const started = await client.request("thread/start", { cwd, approvalMode: "ask" });
    const thread = started.thread;
    const model = thread.model ? `${thread.model.provider}/${thread.model.id}` : "the default model";
    out(`${cyan("→")} thread ${thread.id} in ${cwd}\n`);
    out(`${cyan("→")} model ${model}, approval mode ${thread.approvalMode ?? "ask"}\n`);
    for (const warning of started.warnings) out(`${yellow("!")} ${warning.source}: ${warning.message}\n`);

    let streaming = false;
    const endStream = () => {
      if (streaming) out("\n");
      streaming = false;
    };
    client.onNotification("*", (method, params) => {
      const n = { method, params } as ServerNotification;
      if (n.method === "item/agentMessage/delta") {
        if (!streaming) out(`${green("agent ›")} `);
        streaming = true;
        out(n.params.delta);
      } else if (n.method === "item/started" && isItem(n.params.item) && n.params.item.type === "toolCall") {
        endStream();
        out(
          `  ${yellow("⚙")} tool call ${bold(n.params.item.toolName)} ${dim(summarize(n.params.item.input))}\n`,
        );
      } else if (
        n.method === "item/completed" &&
        isItem(n.params.item) &&
        n.params.item.type === "toolCall"
      ) {
        const item = n.params.item;
        const lines = (item.output ?? "").split("\n").filter((l) => l.trim() !== "").length;
        out(
          `  ${item.status === "completed" ? green("✓") : yellow("✗")} ${item.toolName} ${item.status}, ${lines} ${lines === 1 ? "line" : "lines"} of output\n`,
        );
        for (const change of item.fileChanges ?? []) out(describeFileChange(change));
      } else if (
        n.method === "item/completed" &&
        isItem(n.params.item) &&
        n.params.item.type === "agentMessage"
      ) {
        endStream();
      } else if (n.method === "warning" || n.method === "error") {
        endStream();
        out(`${yellow("!")} ${n.method}: ${n.params.message}\n`);
      }
    });
    let approvals = 0;
    client.onRequest("item/toolCall/requestApproval", (params) => {
      approvals++;
      endStream();
      const choice = params.decisions.includes("accept") ? "accept" : params.decisions[0]!;
      const input = params.input === undefined ? "(input by reference)" : summarize(params.input);
      out(
        `  ${yellow("?")} approval requested: ${bold(params.toolName)} ${dim(input)}` +
          `${params.reason ? ` (${params.reason})` : ""}\n    offered: ${params.decisions.join(", ")} → the script answers ${bold(choice)}\n`,
      );
      return { decision: choice };
    });

    for (const text of PROMPTS) {
      out(`\n${bold("you ›")} ${text}\n`);
      const completed = new Promise<{ status: string; error?: { message: string } }>((resolve) => {
        const off = client.onNotification("turn/completed", (p) => {
          if (p.threadId !== thread.id) return;
          off();
          resolve(p.turn);
        });
      });
      const turnStartedAt = performance.now();
      const start = await client.request("turn/start", { threadId: thread.id, text });
      if (start.status !== "started") {
        out(`${yellow("!")} the turn was ${start.status}\n`);
        continue;
      }
      const turn = await completed;
      endStream();
      const took = ((performance.now() - turnStartedAt) / 1000).toFixed(2);
      out(`${cyan("→")} turn ${turn.status} in ${took} s${turn.error ? `: ${turn.error.message}` : ""}\n`);
    }

    const note = Bun.file(join(cwd, DEMO_NOTE_FILE));
    if (await note.exists()) {
      out(`\n${cyan("→")} ${DEMO_NOTE_FILE} on disk: ${dim(summarize(await note.text()))}\n`);
    }
    if (approvals === 0) {
      out(
        dim(
          "\n(no approval was needed: in ask mode reading and listing are always allowed; a model that edits\n" +
            " files or runs commands is asked first, and this script would answer accept)\n",
        ),
      );
    }
    const diagnostics = await client.request("server/diagnostics", {});
    out(
      `\n${cyan("→")} server: ${diagnostics.loadedThreads} loaded thread(s), ` +
        `${(diagnostics.rssBytes / 1024 / 1024).toFixed(0)} MB RSS\n`,
    );
  } catch (error) {
    out(`\n${yellow("demo failed:")} ${error instanceof Error ? error.message : String(error)}\n`);
    if (serverLog) process.stderr.write(serverLog);
    child.kill();
    return 1;
  }
  // closing stdin is how a client asks the server to shut down
  child.stdin.end();
  const code = await child.exited;
  out(`${cyan("→")} closed stdin; the server shut down with exit code ${code}\n`);
  return code === 0 ? 0 : 1;
}

function isItem(item: unknown): item is ThreadItem {
  return typeof item === "object" && item !== null && (item as { type?: string }).type !== "payloadRef";
}
