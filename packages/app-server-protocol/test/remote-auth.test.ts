import { describe, expect, test } from "bun:test";
import {
  bearerSubprotocols,
  isLoopbackHost,
  KNIGHTCODE_SUBPROTOCOL,
  offersKnightcodeSubprotocol,
  tokenFromSubprotocols,
  WebSocketConnectError,
  WebSocketTransport,
} from "../src/index.ts";

describe("the token as a subprotocol", () => {
  test("round-trips any token, including non-ASCII, through valid subprotocol names", () => {
    for (const token of ["abc", "a/b+c=d", "tökén ✓", "x".repeat(300)]) {
      const offered = bearerSubprotocols(token);
      expect(offered[0]).toBe(KNIGHTCODE_SUBPROTOCOL);
      expect(offered[1]).toMatch(/^knightcode\.bearer\.[A-Za-z0-9_-]+$/);
      expect(tokenFromSubprotocols(offered.join(", "))).toBe(token);
      expect(offersKnightcodeSubprotocol(offered.join(","))).toBe(true);
    }
  });

  test("no bearer, or a malformed one, gives no token", () => {
    expect(tokenFromSubprotocols(null)).toBeUndefined();
    expect(tokenFromSubprotocols("knightcode.v1")).toBeUndefined();
    expect(tokenFromSubprotocols("knightcode.bearer.***")).toBeUndefined();
    expect(offersKnightcodeSubprotocol("knightcode.v2")).toBe(false);
  });
});

describe("loopback names", () => {
  test.each([
    ["localhost", true],
    ["127.0.0.1", true],
    ["127.255.3.4", true],
    ["[::1]", true],
    ["::1", true],
    ["127.0.0.256", false],
    ["0.0.0.0", false],
    ["10.0.0.1", false],
    ["localhost.evil.example", false],
  ])("%s -> %p", (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback);
  });
});

describe("WebSocketTransport", () => {
  test("refuses to send a token over ws:// to a host that is not loopback, before connecting", async () => {
    const transport = new WebSocketTransport("ws://192.0.2.1:4500", { token: "secret-secret-secret" });
    let refused: unknown;
    try {
      await transport.start();
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(WebSocketConnectError);
    expect(String(refused)).toContain("refusing to send the token in clear text");
    expect(String(refused)).not.toContain("secret-secret-secret");
  });
});
