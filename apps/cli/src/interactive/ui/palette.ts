/**
 * The theme's colours by meaning, each with a dark and a light variant in 24-bit colour
 * and one of the 16 basic colours. In 256-colour terminals the nearest colour of the
 * xterm palette (its 6x6x6 cube or its grey ramp) stands in; in 16-colour ones the basic
 * colour, which the user's own terminal palette already fits to its background.
 */
import type { ColorLevel } from "./color-support.ts";

/** Dark text on a light background, or light on dark. */
export type ThemeVariant = "dark" | "light";

/** The colours the UI uses, by what they mean. */
export type ColorRole =
  | "accent"
  | "success"
  | "warning"
  | "error"
  | "added"
  | "removed"
  | "muted"
  | "user"
  | "keyword"
  | "string"
  | "number"
  | "type"
  | "name"
  | "property"
  | "comment";

/** dark-variant hex, light-variant hex, basic SGR foreground code. */
const PALETTE: Record<ColorRole, readonly [string, string, number]> = {
  accent: ["#61afef", "#0969da", 36],
  success: ["#98c379", "#1a7f37", 32],
  warning: ["#e5c07b", "#9a6700", 33],
  error: ["#e06c75", "#cf222e", 31],
  added: ["#98c379", "#1a7f37", 32],
  removed: ["#e06c75", "#cf222e", 31],
  muted: ["#7f848e", "#6e7781", 90],
  user: ["#61afef", "#0550ae", 34],
  keyword: ["#c678dd", "#8250df", 35],
  string: ["#98c379", "#0a3069", 32],
  number: ["#d19a66", "#0550ae", 33],
  type: ["#e5c07b", "#953800", 33],
  name: ["#61afef", "#6639ba", 34],
  property: ["#56b6c2", "#0550ae", 36],
  comment: ["#7f848e", "#6e7781", 90],
};

/** A package theme's colours by role, over both variants (pi's themes have one set). */
let overrides: Partial<Record<ColorRole, string>> = {};

/** pi's colour names (a theme file's `colors`) for the roles they mean here. */
const PI_COLOR_NAMES: Record<string, ColorRole> = {
  accent: "accent",
  success: "success",
  warning: "warning",
  error: "error",
  muted: "muted",
  toolDiffAdded: "added",
  toolDiffRemoved: "removed",
  userMessageText: "user",
  syntaxKeyword: "keyword",
  syntaxString: "string",
  syntaxNumber: "number",
  syntaxType: "type",
  syntaxFunction: "name",
  syntaxVariable: "property",
  syntaxComment: "comment",
};

/**
 * Takes a package theme's colours (pi's names to `#rrggbb`) for the roles they name;
 * roles it leaves out keep the built-in colours. An empty table goes back to the built-in theme.
 */
export function usePackageColors(colors: Record<string, string>): void {
  overrides = {};
  for (const [name, hex] of Object.entries(colors)) {
    const role = PI_COLOR_NAMES[name];
    if (role !== undefined && /^#[0-9a-f]{6}$/i.test(hex)) overrides[role] = hex;
  }
}

function rgbOf(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

const CUBE = [0, 95, 135, 175, 215, 255];

/** The xterm-256 index nearest to an RGB colour (cube or grey ramp, by squared distance). */
export function xterm256(r: number, g: number, b: number): number {
  const nearest = (v: number) => {
    let best = 0;
    for (let i = 1; i < CUBE.length; i++) if (Math.abs(CUBE[i]! - v) < Math.abs(CUBE[best]! - v)) best = i;
    return best;
  };
  const [ri, gi, bi] = [nearest(r), nearest(g), nearest(b)];
  const cube = 16 + 36 * ri + 6 * gi + bi;
  const cubeDistance = (CUBE[ri]! - r) ** 2 + (CUBE[gi]! - g) ** 2 + (CUBE[bi]! - b) ** 2;
  const grey = Math.max(0, Math.min(23, Math.round(((r + g + b) / 3 - 8) / 10)));
  const level = 8 + 10 * grey;
  const greyDistance = (level - r) ** 2 + (level - g) ** 2 + (level - b) ** 2;
  return greyDistance < cubeDistance ? 232 + grey : cube;
}

/** The SGR foreground parameters of `role` (without ESC [ and m); undefined without colour. */
export function foregroundCode(
  role: ColorRole,
  level: ColorLevel,
  variant: ThemeVariant,
): string | undefined {
  const [builtDark, builtLight, basic] = PALETTE[role];
  const dark = overrides[role] ?? builtDark;
  const light = overrides[role] ?? builtLight;
  switch (level) {
    case "none":
      return undefined;
    case "16":
      return String(basic);
    case "256":
      return `38;5;${xterm256(...rgbOf(variant === "dark" ? dark : light))}`;
    case "truecolor":
      return `38;2;${rgbOf(variant === "dark" ? dark : light).join(";")}`;
  }
}
