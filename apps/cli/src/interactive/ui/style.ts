/**
 * Terminal styles by meaning. Colours come from the theme (`palette.ts`) in the depth the
 * terminal announces (`color-support.ts`) and the variant that fits its background,
 * looked up as each line is drawn, so switching the variant (the terminal's answer to
 * OSC 11, the `theme` setting) and redrawing repaints everything. Under `NO_COLOR` no
 * style emits anything.
 */
import { type ColorLevel, colorLevel } from "./color-support.ts";
import { type ColorRole, foregroundCode, type ThemeVariant } from "./palette.ts";
import { variantFromColorFgBg } from "./terminal-background.ts";

const level: ColorLevel = colorLevel(process.env);
const enabled = level !== "none";
let variant: ThemeVariant = variantFromColorFgBg(process.env.COLORFGBG) ?? "dark";

/** The variant styles are drawn in now. */
export function themeVariant(): ThemeVariant {
  return variant;
}

/** Switches the variant; true when it changed (the caller redraws). */
export function setThemeVariant(next: ThemeVariant): boolean {
  if (next === variant) return false;
  variant = next;
  return true;
}

/** The colour depth of this terminal. */
export function terminalColorLevel(): ColorLevel {
  return level;
}

/** A style that wraps text in SGR `open` … `close` (the identity under `NO_COLOR`). */
export function sgr(open: string, close: string): (text: string) => string {
  return enabled ? (text) => `\u001b[${open}m${text}\u001b[${close}m` : (text) => text;
}

/** A foreground colour of the theme, optionally with attributes (`1` bold) before it. */
export function color(role: ColorRole, attributes = "", closeAttributes = ""): (text: string) => string {
  if (!enabled) return (text) => text;
  const open = attributes === "" ? "" : `${attributes};`;
  const close = closeAttributes === "" ? "39" : `${closeAttributes};39`;
  return (text) => `\u001b[${open}${foregroundCode(role, level, variant)}m${text}\u001b[${close}m`;
}

/** The styles the UI uses, by meaning rather than by color. */
export const style = {
  bold: sgr("1", "22"),
  dim: sgr("2", "22"),
  italic: sgr("3", "23"),
  underline: sgr("4", "24"),
  strikethrough: sgr("9", "29"),
  accent: color("accent"),
  success: color("success"),
  warning: color("warning"),
  error: color("error"),
  added: color("added"),
  removed: color("removed"),
  muted: color("muted"),
  user: color("user", "1", "22"),
};
