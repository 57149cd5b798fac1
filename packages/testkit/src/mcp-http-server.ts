/**
 * A streamable-HTTP MCP server on 127.0.0.1, built with the official SDK's server and
 * its web-standard transport under `Bun.serve`. Its tools: `add` (sums two numbers),
 * `whoami` (echoes the request's `x-test-token` header) and `reveal`, which adds a
 * `secret` tool, a `secret-prompt` prompt and a `test://secret-notes` resource and
 * announces the three list changes. Its prompts, listed two pages: `brief` (a required
 * `topic`), rendered as user text, an image, an assistant message and a binary resource,
 * and `plain`. Its resources, listed two pages: `test://readme` and (once revealed) the
 * secret notes; one template, `test://items/{id}`.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

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

const BRIEF_PROMPT = {
  name: "brief",
  description: "Briefs on a topic",
  arguments: [{ name: "topic", description: "What to brief on", required: true }],
};
const PLAIN_PROMPT = { name: "plain", description: "Plain words" };
const SECRET_PROMPT = { name: "secret-prompt", description: "Only listed after reveal" };
/** A 1x1 PNG. */
const PIXEL =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

const README = { uri: "test://readme", name: "readme", mimeType: "text/markdown" };
const SECRET_NOTES = { uri: "test://secret-notes", name: "secret notes", mimeType: "text/plain" };

/** `resources/read` of the resources above and the items template. */
function readResource(uri: string, revealed: boolean) {
  if (uri === README.uri) return { contents: [{ uri, mimeType: README.mimeType, text: "# Read me" }] };
  if (uri === SECRET_NOTES.uri && revealed)
    return { contents: [{ uri, mimeType: SECRET_NOTES.mimeType, text: "secret notes" }] };
  const item = /^test:\/\/items\/(\w+)$/.exec(uri);
  if (item !== null) return { contents: [{ uri, mimeType: "text/plain", text: `item ${item[1]}` }] };
  throw new Error(`unknown resource ${uri}`);
}

/** `prompts/get` of the prompts above. */
function renderPrompt(name: string, args: Record<string, string>) {
  if (name === "brief") {
    return {
      messages: [
        { role: "user", content: { type: "text", text: `Brief me on ${args.topic}.` } },
        { role: "user", content: { type: "image", data: PIXEL, mimeType: "image/png" } },
        { role: "assistant", content: { type: "text", text: "Noted: I will keep it short." } },
        {
          role: "user",
          content: {
            type: "resource",
            resource: { uri: "test://blob", mimeType: "application/octet-stream", blob: "AAEC" },
          },
        },
      ],
    };
  }
  if (name === "plain")
    return { messages: [{ role: "user", content: { type: "text", text: "Plain words." } }] };
  if (name === "secret-prompt")
    return { messages: [{ role: "user", content: { type: "text", text: "The secret prompt." } }] };
  throw new Error(`unknown prompt ${name}`);
}

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
      {
        capabilities: {
          tools: { listChanged: true },
          prompts: { listChanged: true },
          resources: { listChanged: true },
        },
      },
    );
    server.setRequestHandler(ListResourcesRequestSchema, async (request) =>
      request.params?.cursor === "page-2"
        ? { resources: revealed ? [SECRET_NOTES] : [] }
        : { resources: [README], nextCursor: "page-2" },
    );
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: [{ uriTemplate: "test://items/{id}", name: "item", mimeType: "text/plain" }],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) =>
      readResource(request.params.uri, revealed),
    );
    // two pages, so a client has to follow the cursor
    server.setRequestHandler(ListPromptsRequestSchema, async (request) =>
      request.params?.cursor === "page-2"
        ? { prompts: revealed ? [PLAIN_PROMPT, SECRET_PROMPT] : [PLAIN_PROMPT] }
        : { prompts: [BRIEF_PROMPT], nextCursor: "page-2" },
    );
    server.setRequestHandler(GetPromptRequestSchema, async (request) =>
      renderPrompt(request.params.name, request.params.arguments ?? {}),
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
        await extra.sendNotification({ method: "notifications/prompts/list_changed" });
        await extra.sendNotification({ method: "notifications/resources/list_changed" });
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
