/**
 * A streamable-HTTP MCP server on 127.0.0.1, built with the official SDK's server and
 * its web-standard transport under `Bun.serve`. Its tools: `add` (sums two numbers),
 * `whoami` (echoes the request's `x-test-token` header) and `reveal`, which adds a
 * `secret` tool and announces it with `notifications/tools/list_changed`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** The running server. */
export interface McpHttpTestServer extends AsyncDisposable {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Every `tools/call` name received, in order. */
  calls: string[];
  /** `x-test-token` header values seen on requests, in order. */
  tokens: (string | null)[];
  close(): Promise<void>;
}

const BASE_TOOLS = [
  {
    name: "add",
    description: "Adds two numbers",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
  {
    name: "whoami",
    description: "Tells the x-test-token header of the request",
    inputSchema: { type: "object" },
  },
  { name: "reveal", description: "Adds the secret tool", inputSchema: { type: "object" } },
];
const SECRET_TOOL = {
  name: "secret",
  description: "Only listed after reveal",
  inputSchema: { type: "object" },
};

/** Starts the server on an ephemeral loopback port. */
export async function startMcpHttpServer(): Promise<McpHttpTestServer> {
  const calls: string[] = [];
  const tokens: (string | null)[] = [];
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  let revealed = false;
  let lastToken: string | null = null;

  const newSession = async (): Promise<WebStandardStreamableHTTPServerTransport> => {
    const server = new Server(
      { name: "knightcode-test-http", version: "1.0.0" },
      { capabilities: { tools: { listChanged: true } } },
    );
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: revealed ? [...BASE_TOOLS, SECRET_TOOL] : BASE_TOOLS,
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const { name, arguments: args = {} } = request.params;
      calls.push(name);
      if (name === "add") {
        const sum = Number(args.a) + Number(args.b);
        return { content: [{ type: "text", text: `The sum is ${sum}` }] };
      }
      if (name === "whoami") return { content: [{ type: "text", text: `token: ${lastToken}` }] };
      if (name === "reveal") {
        revealed = true;
        await extra.sendNotification({ method: "notifications/tools/list_changed" });
        return { content: [{ type: "text", text: "revealed" }] };
      }
      if (name === "secret" && revealed) return { content: [{ type: "text", text: "the secret is 42" }] };
      return { content: [{ type: "text", text: `unknown tool ${name}` }], isError: true };
    });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, transport);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport;
  };

  const http = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      if (new URL(request.url).pathname !== "/mcp") return new Response("not found", { status: 404 });
      lastToken = request.headers.get("x-test-token");
      tokens.push(lastToken);
      const id = request.headers.get("mcp-session-id");
      const known = id !== null ? sessions.get(id) : undefined;
      if (id !== null && known === undefined) return new Response("unknown session", { status: 404 });
      return (known ?? (await newSession())).handleRequest(request);
    },
  });

  const close = async () => {
    for (const transport of sessions.values()) await transport.close().catch(() => undefined);
    sessions.clear();
    await http.stop(true);
  };
  return {
    url: `http://127.0.0.1:${http.port}/mcp`,
    calls,
    tokens,
    close,
    [Symbol.asyncDispose]: close,
  };
}
