/**
 * An OAuth-protected streamable-HTTP MCP server on 127.0.0.1, built from the official
 * SDK's server-side auth helpers: `mcpAuthRouter` serves the authorization server's and
 * the protected resource's metadata, dynamic client registration, `/authorize` and
 * `/token` (PKCE checked by the SDK); `requireBearerAuth` guards `/mcp`. The provider
 * here approves every authorization at once (there is no user to ask) by redirecting to
 * the client's registered redirect URI with a code, so a test's "browser" only has to
 * follow that redirect. One tool, `guarded-echo`, answers once a token is accepted.
 */
import { randomUUID } from "node:crypto";
import type { AddressInfo } from "node:net";
import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from "@modelcontextprotocol/sdk/server/auth/provider.js";
import {
  getOAuthProtectedResourceMetadataUrl,
  mcpAuthRouter,
} from "@modelcontextprotocol/sdk/server/auth/router.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { createMcpExpressApp } from "@modelcontextprotocol/sdk/server/express.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/** The running server. */
export interface McpOAuthTestServer extends AsyncDisposable {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Access tokens issued, in order (a test checks they never reach logs or settings). */
  issuedTokens: string[];
  /** Requests to `/mcp` refused for a missing or bad token. */
  refused: number;
  close(): Promise<void>;
}

/** Approves every authorization; codes and tokens live in memory. */
class ApprovingProvider implements OAuthServerProvider {
  readonly #clients = new Map<string, OAuthClientInformationFull>();
  readonly #codes = new Map<string, { clientId: string; params: AuthorizationParams }>();
  readonly #tokens = new Map<string, AuthInfo>();
  constructor(private readonly issued: string[]) {}

  get clientsStore() {
    return {
      getClient: (id: string) => this.#clients.get(id),
      registerClient: (client: Omit<OAuthClientInformationFull, "client_id" | "client_id_issued_at">) => {
        const full = {
          ...client,
          client_id: randomUUID(),
          client_id_issued_at: Math.floor(Date.now() / 1000),
        };
        this.#clients.set(full.client_id, full);
        return full;
      },
    };
  }

  async authorize(
    client: OAuthClientInformationFull,
    params: AuthorizationParams,
    res: { redirect(url: string): void },
  ): Promise<void> {
    if (!client.redirect_uris.includes(params.redirectUri)) throw new Error("unregistered redirect_uri");
    const code = randomUUID();
    this.#codes.set(code, { clientId: client.client_id, params });
    const target = new URL(params.redirectUri);
    target.searchParams.set("code", code);
    if (params.state !== undefined) target.searchParams.set("state", params.state);
    res.redirect(target.toString());
  }

  async challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const issued = this.#codes.get(code);
    if (issued === undefined) throw new Error("unknown authorization code");
    return issued.params.codeChallenge;
  }

  async exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string): Promise<OAuthTokens> {
    const issued = this.#codes.get(code);
    if (issued === undefined || issued.clientId !== client.client_id)
      throw new Error("unknown authorization code");
    this.#codes.delete(code);
    const token = randomUUID();
    this.issued.push(token);
    this.#tokens.set(token, {
      token,
      clientId: client.client_id,
      scopes: issued.params.scopes ?? [],
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
    });
    return { access_token: token, token_type: "bearer", expires_in: 3600 };
  }

  async exchangeRefreshToken(): Promise<OAuthTokens> {
    throw new Error("refresh tokens are not issued by this test server");
  }

  async verifyAccessToken(token: string): Promise<AuthInfo> {
    const info = this.#tokens.get(token);
    if (info === undefined) throw new Error("unknown token");
    return info;
  }
}

function mcpServer(): Server {
  const server = new Server(
    { name: "knightcode-oauth-test", version: "1.0.0" },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: "guarded-echo",
        description: "Echoes its text, behind OAuth",
        inputSchema: { type: "object", properties: { text: { type: "string" } } },
      },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: "text", text: String((request.params.arguments as { text?: unknown })?.text ?? "") }],
  }));
  return server;
}

/** Starts the server on a free loopback port. */
export async function startMcpOAuthServer(): Promise<McpOAuthTestServer> {
  const issuedTokens: string[] = [];
  const provider = new ApprovingProvider(issuedTokens);
  const app = createMcpExpressApp({ host: "127.0.0.1" });
  const listener = await new Promise<import("node:http").Server>((resolve) => {
    const server = app.listen(0, "127.0.0.1", () => resolve(server));
  });
  const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  const url = `${base}/mcp`;
  const state = { refused: 0 };
  app.use(mcpAuthRouter({ provider, issuerUrl: new URL(base), resourceServerUrl: new URL(url) }));
  const guard = requireBearerAuth({
    verifier: provider,
    resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)),
  });
  const counted = (
    req: unknown,
    res: { statusCode: number; on(event: string, f: () => void): void },
    next: () => void,
  ) => {
    res.on("finish", () => {
      if (res.statusCode === 401) state.refused++;
    });
    (guard as (req: unknown, res: unknown, next: () => void) => void)(req, res, next);
  };
  // Stateless: each request gets its own server and transport, as the SDK's stateless example does.
  app.all(
    "/mcp",
    counted,
    async (req: { body?: unknown }, res: { on(event: string, f: () => void): void }) => {
      const server = mcpServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req as never, res as never, req.body);
    },
  );
  const close = () =>
    new Promise<void>((resolve) => {
      listener.closeAllConnections();
      listener.close(() => resolve());
    });
  return {
    url,
    issuedTokens,
    get refused() {
      return state.refused;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
