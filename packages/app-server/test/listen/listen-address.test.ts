import { describe, expect, test } from "bun:test";
import { ListenAddressError, parseListenAddress } from "../../src/listen/listen-address.ts";
import { refusal } from "../../src/listen/request-policy.ts";

describe("--listen addresses", () => {
  test("stdio, unix, ws and wss parse; loopback is told apart from the rest", () => {
    expect(parseListenAddress("stdio://")).toEqual({ kind: "stdio" });
    expect(parseListenAddress("unix:///run/kc.sock")).toEqual({ kind: "unix", path: "/run/kc.sock" });
    expect(parseListenAddress("ws://127.0.0.1:0")).toEqual({
      kind: "ws",
      hostname: "127.0.0.1",
      port: 0,
      loopback: true,
    });
    expect(parseListenAddress("wss://[::1]:4500")).toEqual({
      kind: "wss",
      hostname: "::1",
      port: 4500,
      loopback: true,
    });
    expect(parseListenAddress("ws://localhost:80")).toMatchObject({ loopback: true, port: 80 });
    expect(parseListenAddress("ws://0.0.0.0:4500")).toMatchObject({ loopback: false });
    expect(parseListenAddress("wss://192.168.1.5:443")).toMatchObject({ loopback: false, port: 443 });
  });

  test.each([
    ["tcp://127.0.0.1:1", "--listen takes stdio://"],
    ["unix://", "needs a socket path"],
    ["ws://127.0.0.1", "needs a port"],
    ["ws://127.0.0.1:70000", "out of range"],
    ["ws://example.com:80", "IP address"],
    ["ws://127.0.0.1:80/path", "nothing after the port"],
  ])("%s is refused (%s)", (value, reason) => {
    expect(() => parseListenAddress(value)).toThrow(ListenAddressError);
    expect(() => parseListenAddress(value)).toThrow(reason);
  });
});

describe("the request policy", () => {
  const policy = { scheme: "ws" as const, loopback: true, allowOrigins: ["https://ok.example"] };
  const request = (headers: Record<string, string>) => new Request("http://127.0.0.1:9/", { headers });

  test("a loopback listener takes loopback Host names only", () => {
    expect(refusal(request({ host: "127.0.0.1:9" }), policy)).toBeUndefined();
    expect(refusal(request({ host: "localhost:9" }), policy)).toBeUndefined();
    expect(refusal(request({ host: "[::1]:9" }), policy)).toBeUndefined();
    expect(refusal(request({ host: "127.0.0.1.evil.example:9" }), policy)).toBe("host");
    expect(refusal(request({ host: "evil.example" }), { ...policy, loopback: false })).toBeUndefined();
  });

  test("an Origin must be the listener's own or an allowed one", () => {
    expect(refusal(request({ host: "127.0.0.1:9", origin: "http://127.0.0.1:9" }), policy)).toBeUndefined();
    expect(refusal(request({ host: "127.0.0.1:9", origin: "https://ok.example" }), policy)).toBeUndefined();
    expect(refusal(request({ host: "127.0.0.1:9", origin: "https://127.0.0.1:9" }), policy)).toBe("origin");
    expect(refusal(request({ host: "127.0.0.1:9", origin: "http://127.0.0.1:10" }), policy)).toBe("origin");
    expect(refusal(request({ host: "127.0.0.1:9", origin: "null" }), policy)).toBe("origin");
  });
});
