import { describe, expect, test } from "bun:test";
import { configuredMcpServers, mcpServerConfigProblem } from "../src/mcp-settings.ts";
import type { ConfigWarning } from "../src/warning.ts";

describe("mcpServers setting", () => {
  test("stdio and streamable-HTTP servers load from the global settings, keyed by name", () => {
    const servers = configuredMcpServers(
      {
        mcpServers: {
          files: { command: "mcp-files", args: ["/tmp"], env: { TOKEN: "t" }, cwd: "sub", tools: ["read"] },
          web: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer x" }, enabled: false },
        },
      },
      null,
    );
    expect(servers).toEqual([
      {
        name: "files",
        origin: "global",
        config: { command: "mcp-files", args: ["/tmp"], env: { TOKEN: "t" }, cwd: "sub", tools: ["read"] },
      },
      {
        name: "web",
        origin: "global",
        config: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer x" }, enabled: false },
      },
    ]);
  });

  test("a project entry replaces the global entry of the same name whole", () => {
    const servers = configuredMcpServers(
      { mcpServers: { a: { command: "global-a" }, b: { command: "global-b" } } },
      { mcpServers: { a: { url: "https://example.test/mcp" } } },
    );
    expect(servers).toEqual([
      { name: "a", origin: "project", config: { url: "https://example.test/mcp" } },
      { name: "b", origin: "global", config: { command: "global-b" } },
    ]);
  });

  test("malformed entries are skipped with a settings warning naming them; the rest load", () => {
    const warnings: ConfigWarning[] = [];
    const servers = configuredMcpServers(
      {
        mcpServers: {
          ok: { command: "x" },
          both: { command: "x", url: "http://h" },
          neither: { args: [] },
          badArgs: { command: "x", args: "nope" },
          badEnv: { command: "x", env: { K: 1 } },
          badUrl: { url: "not a url" },
          ftp: { url: "ftp://h/x" },
          typo: { command: "x", argz: [] },
          slow: { command: "x", startTimeoutMs: 0 },
          "a.b": { command: "" },
        },
      },
      null,
      warnings,
    );
    expect(servers.map((s) => s.name)).toEqual(["ok"]);
    expect(warnings.map((w) => w.source)).toEqual(Array(9).fill("settings"));
    expect(warnings.map((w) => w.message)).toEqual([
      "global setting mcpServers.both needs exactly one of `command` (stdio) or `url` (streamable HTTP); server skipped",
      "global setting mcpServers.neither needs exactly one of `command` (stdio) or `url` (streamable HTTP); server skipped",
      "global setting mcpServers.badArgs `args` must be an array of strings; server skipped",
      "global setting mcpServers.badEnv `env` must map names to strings; server skipped",
      "global setting mcpServers.badUrl `url` must be an absolute URL; server skipped",
      "global setting mcpServers.ftp `url` must be http or https; server skipped",
      "global setting mcpServers.typo has an unknown key `argz`; server skipped",
      "global setting mcpServers.slow `startTimeoutMs` must be an integer from 1 to 600000; server skipped",
      'global setting mcpServers["a.b"] `command` must be a non-empty string; server skipped',
    ]);
  });

  test("an mcpServers value that is not an object is ignored with a warning", () => {
    const warnings: ConfigWarning[] = [];
    expect(configuredMcpServers({ mcpServers: ["x"] }, null, warnings)).toEqual([]);
    expect(warnings).toEqual([
      { source: "settings", message: "global setting mcpServers must be an object; ignored" },
    ]);
  });

  test("the problem check accepts both transports", () => {
    expect(mcpServerConfigProblem({ command: "x", enabled: true, startTimeoutMs: 5 })).toBeUndefined();
    expect(mcpServerConfigProblem({ url: "https://h/mcp", tools: [] })).toBeUndefined();
    expect(mcpServerConfigProblem("x")).toBe("must be an object");
  });
});
