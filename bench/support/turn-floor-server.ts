/**
 * The floor of the turn path: the least a server speaking the app-server protocol over
 * stdio can do for a turn. `initialize` and `thread/start` are answered at once; a
 * `turn/start` makes one streaming chat-completions request to the mock (the base URL is
 * argv[2]) and relays each text delta as one `item/agentMessage/delta` line, then
 * `turn/completed`. No session, no agent, no validation: what KnightCode spends above
 * this is what its turn path costs.
 */
import { streamLines } from "../../packages/testkit/src/stream-lines.ts";

const baseUrl = process.argv[2];
if (!baseUrl) throw new Error("usage: floor-server.ts <mock base URL>");

const out = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`);
let turns = 0;

async function turn(id: unknown, threadId: string): Promise<void> {
  turns += 1;
  const turnId = `t${turns}`;
  out({ jsonrpc: "2.0", id, result: { status: "started", threadId } });
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "mock", stream: true, messages: [{ role: "user", content: "go" }] }),
  });
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of response.body!) {
    rest += decoder.decode(chunk, { stream: true });
    const events = rest.split("\n\n");
    rest = events.pop() ?? "";
    for (const event of events) {
      const data = event.startsWith("data: ") ? event.slice(6) : "";
      if (data === "" || data === "[DONE]") continue;
      const delta = (JSON.parse(data) as { choices?: { delta?: { content?: string } }[] }).choices?.[0]?.delta
        ?.content;
      if (typeof delta === "string" && delta !== "") {
        out({
          jsonrpc: "2.0",
          method: "item/agentMessage/delta",
          params: { threadId, turnId, itemId: `${turnId}:0`, delta },
        });
      }
    }
  }
  out({
    jsonrpc: "2.0",
    method: "turn/completed",
    params: { threadId, turn: { id: turnId, status: "completed" } },
  });
}

for await (const line of streamLines(Bun.stdin.stream())) {
  if (line.trim() === "") continue;
  const message = JSON.parse(line) as { id?: unknown; method?: string; params?: { threadId?: string } };
  if (message.method === "initialize") out({ jsonrpc: "2.0", id: message.id, result: {} });
  else if (message.method === "thread/start")
    out({ jsonrpc: "2.0", id: message.id, result: { thread: { id: "floor" } } });
  else if (message.method === "turn/start") void turn(message.id, message.params?.threadId ?? "floor");
  else if (message.id !== undefined) out({ jsonrpc: "2.0", id: message.id, result: {} });
}
