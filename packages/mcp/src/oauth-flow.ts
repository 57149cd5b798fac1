/**
 * The SDK's client OAuth flow for one streamable-HTTP server, with a loopback redirect
 * (RFC 8252): a listener on 127.0.0.1 at a free port, started when the flow first needs
 * its redirect URI, receives the authorization code at `/callback`, checked against the
 * `state` this flow sent. The SDK does discovery, dynamic client registration, PKCE, the
 * code exchange and refreshes; this provider stores what it is given (`OAuthStore`,
 * 0600) and opens the authorization URL through the hub's opener.
 */
import { randomBytes } from "node:crypto";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { AuthorizationOpener } from "./authorization-opener.ts";
import { OAuthStore } from "./oauth-store.ts";

/** One server's flow: the provider the transport uses and the code the redirect brings. */
export class OAuthFlow {
  readonly store: OAuthStore;
  readonly #state = randomBytes(16).toString("hex");
  #verifier: string | undefined;
  #listener: ReturnType<typeof Bun.serve> | undefined;
  readonly #code = Promise.withResolvers<string>();

  constructor(
    private readonly server: string,
    serverUrl: string,
    dir: string,
    private readonly open: AuthorizationOpener,
  ) {
    this.store = new OAuthStore(dir, serverUrl);
    // a code that never comes is the start timeout's to report
    this.#code.promise.catch(() => undefined);
  }

  /** The authorization code, once the browser is redirected back with the right state. */
  code(): Promise<string> {
    return this.#code.promise;
  }

  #redirectUrl(): string {
    this.#listener ??= Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => this.#callback(new URL(request.url)),
    });
    return `http://127.0.0.1:${this.#listener.port}/callback`;
  }

  #callback(url: URL): Response {
    if (url.pathname !== "/callback") return new Response("Not found", { status: 404 });
    const page = (text: string, status: number) =>
      new Response(`<!doctype html><title>KnightCode</title><p>${text}</p>`, {
        status,
        headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" },
      });
    if (url.searchParams.get("state") !== this.#state) return page("This sign-in link is stale.", 400);
    const error = url.searchParams.get("error");
    const code = url.searchParams.get("code");
    if (error !== null || code === null) {
      this.#code.reject(new Error(`authorization was refused: ${error ?? "no code"}`));
      return page("Sign-in was refused; you can close this tab.", 400);
    }
    this.#code.resolve(code);
    return page(`Signed in to the MCP server ${this.server}; you can close this tab.`, 200);
  }

  /** The SDK's view of this flow. */
  provider(): OAuthClientProvider {
    const flow = this;
    return {
      get redirectUrl() {
        return flow.#redirectUrl();
      },
      get clientMetadata(): OAuthClientMetadata {
        return {
          client_name: "KnightCode",
          redirect_uris: [flow.#redirectUrl()],
          grant_types: ["authorization_code", "refresh_token"],
          response_types: ["code"],
          token_endpoint_auth_method: "none",
        };
      },
      state: () => flow.#state,
      clientInformation: () => {
        const client = flow.store.read().clientInformation as OAuthClientInformationMixed | undefined;
        // a client registered with another loopback port cannot receive this flow's redirect
        const uris = (client as { redirect_uris?: string[] } | undefined)?.redirect_uris;
        if (client !== undefined && uris !== undefined && flow.#listener !== undefined) {
          if (!uris.includes(flow.#redirectUrl())) return undefined;
        }
        return client;
      },
      saveClientInformation: (info) =>
        flow.store.update((s) => ({ ...s, clientInformation: info as Record<string, unknown> })),
      tokens: () => flow.store.read().tokens as OAuthTokens | undefined,
      saveTokens: (tokens) => flow.store.update((s) => ({ ...s, tokens: tokens as Record<string, unknown> })),
      redirectToAuthorization: (url) => flow.open(url, flow.server),
      saveCodeVerifier: (verifier) => {
        flow.#verifier = verifier;
      },
      codeVerifier: () => {
        if (flow.#verifier === undefined) throw new Error("no authorization is in progress");
        return flow.#verifier;
      },
      invalidateCredentials: (scope) => {
        if (scope === "all") flow.store.clear();
        else if (scope === "tokens") flow.store.update(({ tokens: _, ...rest }) => rest);
        else if (scope === "client") flow.store.update(({ clientInformation: _, ...rest }) => rest);
      },
    };
  }

  /** Stops the loopback listener. */
  close(): void {
    this.#code.reject(new Error("the connection closed"));
    void this.#listener?.stop(true);
    this.#listener = undefined;
  }
}
