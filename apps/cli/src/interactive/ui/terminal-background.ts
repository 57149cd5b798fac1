/**
 * Whether the terminal's background is dark or light: from its answer to OSC 11 (`ESC ]
 * 11 ; ?`, answered `ESC ] 11 ; rgb:RRRR/GGGG/BBBB` and BEL or ST), else from
 * `COLORFGBG` (`fg;bg` palette indices, which rxvt, Konsole and others set).
 */
import type { ThemeVariant } from "./palette.ts";

/** The query; terminals that do not know it stay silent. */
export const BACKGROUND_QUERY = "\u001b]11;?\u001b\\";

const REPLY =
  /^\u001b\]11;rgba?:([0-9a-f]{1,4})\/([0-9a-f]{1,4})\/([0-9a-f]{1,4})(?:\/[0-9a-f]{1,4})?(?:\u0007|\u001b\\)?$/i;

/** True for input that is (the start of) an OSC 11 answer, which must never reach the editor. */
export function isBackgroundReply(data: string): boolean {
  return data.startsWith("\u001b]11;");
}

/** The variant an OSC 11 answer stands for (by relative luminance), or undefined for anything else. */
export function variantFromReply(data: string): ThemeVariant | undefined {
  const match = REPLY.exec(data);
  if (!match) return undefined;
  // each component has 1-4 hex digits, scaled to 0..1 by its own width
  const [r, g, b] = [match[1]!, match[2]!, match[3]!].map(
    (hex) => Number.parseInt(hex, 16) / (16 ** hex.length - 1),
  );
  const luminance = 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
  return luminance > 0.5 ? "light" : "dark";
}

/** The variant `COLORFGBG` implies (its last field is the background's palette index), or undefined. */
export function variantFromColorFgBg(value: string | undefined): ThemeVariant | undefined {
  if (value === undefined || value === "") return undefined;
  const background = Number(value.split(";").at(-1));
  if (!Number.isInteger(background) || background < 0 || background > 15) return undefined;
  // 7 (light grey) and the bright colours from 9 on are light backgrounds; 8 is dark grey
  return background === 7 || background >= 9 ? "light" : "dark";
}
