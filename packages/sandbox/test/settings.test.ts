import { describe, expect, test } from "bun:test";
import { readSandboxSettings } from "../src/index.ts";

const read = (
  global: Record<string, unknown> | null,
  project: Record<string, unknown> | null = null,
  forced = false,
) => readSandboxSettings({ global, project, forced, home: "/home/u" });

describe("sandbox settings", () => {
  test("off by default; --sandbox forces it on; network off unless the global block says on", () => {
    expect(read(null).settings).toEqual({
      enabled: false,
      network: "off",
      extraWritable: [],
      extraReadable: [],
      allowGitWrites: false,
    });
    expect(read(null, null, true).settings.enabled).toBe(true);
    expect(read({ sandbox: { enabled: true, network: "on" } }).settings).toMatchObject({
      enabled: true,
      network: "on",
    });
  });

  test("a trusted project may turn the sandbox on but never widen it", () => {
    const { settings } = read(null, {
      sandbox: { enabled: true, network: "on", extraWritable: ["/"], allowGitWrites: true },
    });
    expect(settings).toEqual({
      enabled: true,
      network: "off",
      extraWritable: [],
      extraReadable: [],
      allowGitWrites: false,
    });
    expect(read({ sandbox: { enabled: true } }, { sandbox: { enabled: false } }).settings.enabled).toBe(true);
  });

  test("extra paths expand ~ and must be absolute; bad values warn and are ignored", () => {
    const { settings, warnings } = read({
      sandbox: {
        extraWritable: ["~/cache", "relative/dir"],
        extraReadable: "nope",
        network: "maybe",
        enabled: "yes",
      },
    });
    expect(settings.extraWritable).toEqual(["/home/u/cache"]);
    expect(settings.extraReadable).toEqual([]);
    expect(settings.network).toBe("off");
    expect(settings.enabled).toBe(false);
    expect(warnings.map((w) => w.message)).toEqual([
      'sandbox.network must be "off" or "on"; using "off"',
      "sandbox.enabled must be true or false; ignored",
      "sandbox.extraWritable: relative/dir is not an absolute path; ignored",
      "sandbox.extraReadable must be an array of paths; ignored",
    ]);
    expect(read({ sandbox: { workspace: "/workspace/" } }).settings.workspace).toBe("/workspace");
    expect(read({ sandbox: { workspace: "rel" } }).warnings.map((w) => w.message)).toEqual([
      "sandbox.workspace must be an absolute path other than /; ignored",
    ]);
    expect(read(null, { sandbox: { workspace: "/w" } }).settings.workspace).toBeUndefined();
    expect(read({ sandbox: [] }).warnings).toEqual([
      { source: "settings", message: "sandbox must be an object; ignored" },
    ]);
  });
});
