import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { textReply } from "@knightcode/testkit";
import { colorLevel } from "../src/interactive/ui/color-support.ts";
import { foregroundCode, xterm256 } from "../src/interactive/ui/palette.ts";
import { variantFromColorFgBg, variantFromReply } from "../src/interactive/ui/terminal-background.ts";
import { enqueueBetaEdit, mockedAgent } from "./support/cli-run.ts";
import { KEYS, PtySession } from "./support/pty-session.ts";

/** The muted colour (footer, hints) in each variant, as 24-bit SGR parameters. */
const MUTED_DARK = "38;2;127;132;142";
const MUTED_LIGHT = "38;2;110;119;129";
/** No inherited colour hints from the machine running the tests. */
const PLAIN_ENV = { NO_COLOR: "", COLORTERM: "", COLORFGBG: "" };

/** SGR parameters that set or reset a colour (foreground or background, any depth). */
function colourParameters(raw: string): string[] {
  const found: string[] = [];
  for (const match of raw.matchAll(/\u001b\[([0-9;:]*)m/g)) {
    for (const p of match[1]!.split(/[;:]/)) {
      const n = Number(p);
      if (p !== "" && ((n >= 30 && n <= 49) || (n >= 90 && n <= 107))) found.push(match[1]!);
    }
  }
  return found;
}

/** A local package whose themes/ folder holds a pi theme file, deep-sea (a var and a literal colour). */
function deepSeaThemePackage(): string {
  const pkg = mkdtempSync(join(tmpdir(), "knightcode-theme-pkg-"));
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "deep-sea-theme", version: "1.0.0" }));
  mkdirSync(join(pkg, "themes"));
  writeFileSync(
    join(pkg, "themes", "deep-sea.json"),
    JSON.stringify({
      name: "deep-sea",
      vars: { kelp: "#112233" },
      colors: { muted: "kelp", accent: "#445566" },
    }),
  );
  return pkg;
}

describe("colour depth, variants and the background", () => {
  test("the depth follows NO_COLOR, TERM and COLORTERM", () => {
    expect(colorLevel({ NO_COLOR: "1", COLORTERM: "truecolor" })).toBe("none");
    expect(colorLevel({ TERM: "dumb" })).toBe("none");
    expect(colorLevel({ NO_COLOR: "", TERM: "xterm", COLORTERM: "24bit" })).toBe("truecolor");
    expect(colorLevel({ TERM: "xterm-256color" })).toBe("256");
    expect(colorLevel({ TERM: "screen-256color" })).toBe("256");
    expect(colorLevel({ TERM: "xterm" })).toBe("16");
    expect(colorLevel({})).toBe("16");
  });

  test("each role has a 24-bit colour per variant, the nearest xterm-256 colour and a basic colour", () => {
    expect(foregroundCode("muted", "truecolor", "dark")).toBe(MUTED_DARK);
    expect(foregroundCode("muted", "truecolor", "light")).toBe(MUTED_LIGHT);
    expect(foregroundCode("accent", "16", "light")).toBe("36");
    expect(foregroundCode("accent", "none", "dark")).toBeUndefined();
    expect(xterm256(0, 0, 0)).toBe(16);
    expect(xterm256(255, 255, 255)).toBe(231);
    expect(xterm256(128, 128, 128)).toBe(244);
    expect(xterm256(95, 175, 215)).toBe(74);
    expect(foregroundCode("accent", "256", "dark")).toBe("38;5;75");
  });

  test("an OSC 11 answer and COLORFGBG tell dark from light", () => {
    expect(variantFromReply("\u001b]11;rgb:ffff/ffff/ffff\u001b\\")).toBe("light");
    expect(variantFromReply("\u001b]11;rgb:0000/0000/0000\u0007")).toBe("dark");
    expect(variantFromReply("\u001b]11;rgb:fd/f6/e3\u0007")).toBe("light");
    expect(variantFromReply("\u001b]11;rgb:1e1e/1e1e/2e2e\u001b\\")).toBe("dark");
    expect(variantFromReply("\u001b]10;rgb:ffff/ffff/ffff\u0007")).toBeUndefined();
    expect(variantFromColorFgBg("0;15")).toBe("light");
    expect(variantFromColorFgBg("15;default;0")).toBe("dark");
    expect(variantFromColorFgBg("7;0")).toBe("dark");
    expect(variantFromColorFgBg("0;7")).toBe("light");
    expect(variantFromColorFgBg("garbage")).toBeUndefined();
    expect(variantFromColorFgBg(undefined)).toBeUndefined();
  });
});

describe("themes in a terminal", () => {
  test("NO_COLOR: a turn with markdown and a diff writes no colour code at all", async () => {
    await using env = await mockedAgent();
    enqueueBetaEdit(env, "Done, **bold** and `code`.");
    await using tty = new PtySession([], {
      cwd: env.agent.cwd,
      env: { ...env.env, ...PLAIN_ENV, NO_COLOR: "1" },
    });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("change beta");
    const screen = await tty.waitFor("Done, bold and code.");
    expect(screen).toMatch(/^\s+\+gamma$/m);
    expect(colourParameters(tty.raw)).toEqual([]);
  }, 30_000);

  test("COLORTERM=truecolor draws 24-bit colours, a 256-colour TERM the xterm palette, a plain TERM the basic colours", async () => {
    await using env = await mockedAgent();
    const sessions: [Record<string, string>, RegExp, RegExp][] = [
      [{ COLORTERM: "truecolor", TERM: "xterm-256color" }, /\u001b\[38;2;127;132;142m/, /\u001b\[38;5;/],
      [{ TERM: "xterm-256color" }, /\u001b\[38;5;\d+m/, /\u001b\[38;2;/],
      [{ TERM: "xterm" }, /\u001b\[90m/, /\u001b\[38;[25];/],
    ];
    for (const [vars, drawn, never] of sessions) {
      await using tty = new PtySession([], {
        cwd: env.agent.cwd,
        env: { ...env.env, ...PLAIN_ENV, ...vars },
      });
      await tty.waitFor("mock-completions/mock-model");
      await tty.waitFor(() => drawn.test(tty.raw));
      expect(tty.raw).not.toMatch(never);
    }
  }, 30_000);

  test("auto: the terminal's answer to the background query switches to the light variant; the answer never reaches the editor", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue(textReply("light reply"));
    const vars = { ...env.env, ...PLAIN_ENV, COLORTERM: "truecolor" };
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: vars });
    await tty.waitFor(() => tty.raw.includes("\u001b]11;?") && tty.raw.includes(MUTED_DARK));
    tty.write("\u001b]11;rgb:ffff/ffff/f0f0\u001b\\");
    await tty.waitFor(() => tty.raw.includes(MUTED_LIGHT));
    await tty.waitFor("mock-completions/mock-model");
    tty.type("hi");
    const screen = await tty.waitFor("light reply");
    expect(screen).not.toContain("rgb:");
    expect(screen).toContain("› hi");
  }, 30_000);

  test("the theme setting wins over the terminal, and COLORFGBG is the guess when it does not answer", async () => {
    await using light = await mockedAgent({ theme: "light" });
    {
      await using tty = new PtySession([], {
        cwd: light.agent.cwd,
        env: { ...light.env, ...PLAIN_ENV, COLORTERM: "truecolor" },
      });
      await tty.waitFor(() => tty.raw.includes("\u001b]11;?"));
      // the terminal says dark; the setting says light
      tty.write("\u001b]11;rgb:0000/0000/0000\u0007");
      await tty.waitFor(() => tty.raw.includes(MUTED_LIGHT));
    }
    await using auto = await mockedAgent();
    await using tty = new PtySession([], {
      cwd: auto.agent.cwd,
      env: { ...auto.env, ...PLAIN_ENV, COLORTERM: "truecolor", COLORFGBG: "0;15" },
    });
    await tty.waitFor("mock-completions/mock-model");
    await tty.waitFor(() => tty.raw.includes(MUTED_LIGHT));
    expect(tty.raw).not.toContain(MUTED_DARK);
  }, 30_000);

  test("a theme setting that is not auto, dark or light is named in a warning and auto is used", async () => {
    await using env = await mockedAgent({ theme: "solarized" });
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: { ...env.env, ...PLAIN_ENV } });
    const warning =
      'theme "solarized" is not one of auto, dark, light or an installed package\'s theme; using auto';
    await tty.waitFor(warning);
    // still there once the session shows (opening a thread clears the conversation)
    await tty.waitFor("fullAccess");
    expect(tty.text()).toContain(warning);
  }, 30_000);

  test("a theme an installed package offers is taken by name: its colours replace ours for the roles it names", async () => {
    const pkg = deepSeaThemePackage();
    try {
      await using env = await mockedAgent({ theme: "deep-sea", packages: [pkg] });
      await using tty = new PtySession([], {
        cwd: env.agent.cwd,
        env: { ...env.env, ...PLAIN_ENV, COLORTERM: "truecolor" },
      });
      await tty.waitFor("mock-completions/mock-model");
      // the footer is muted: drawn in the theme's colour once the setting is read
      await tty.waitFor(() => tty.raw.includes("38;2;17;34;51"));
      expect(tty.text()).not.toContain("is not one of");
    } finally {
      rmSync(pkg, { recursive: true, force: true });
    }
  }, 30_000);

  test("/settings has a theme entry: it opens on the current value, marked, lists the packages' themes and writes the choice", async () => {
    const pkg = deepSeaThemePackage();
    try {
      await using env = await mockedAgent({ theme: "light", packages: [pkg] });
      await using tty = new PtySession([], {
        cwd: env.agent.cwd,
        env: { ...env.env, ...PLAIN_ENV },
        rows: 40,
      });
      await tty.waitFor("mock-completions/mock-model");
      tty.type("/settings");
      await tty.waitFor(/Theme\s+light \(global settings\.json\)/);
      for (let i = 0; i < 5; i++) tty.write(KEYS.down);
      await tty.waitFor(/→ Theme/);
      tty.write(KEYS.enter);
      const list = await tty.waitFor("Theme (auto follows");
      await tty.waitFor(/→ light ●/);
      expect(list).toMatch(/^\s*auto\s*$/m);
      expect(list).toMatch(/^\s*dark\s*$/m);
      expect(list).toMatch(/^\s*deep-sea\s*$/m);
      tty.write(KEYS.down);
      await tty.waitFor(/→ deep-sea/);
      tty.write(KEYS.enter);
      await tty.waitFor("Theme: deep-sea (from the next start)");
      const settings = JSON.parse(readFileSync(join(env.agent.agentDir, "settings.json"), "utf8"));
      expect(settings.theme).toBe("deep-sea");
    } finally {
      rmSync(pkg, { recursive: true, force: true });
    }
  }, 30_000);
});
