/**
 * How many colours the terminal takes, from the environment as terminals announce it:
 * `NO_COLOR` (any non-empty value) or `TERM=dumb` means none; `COLORTERM=truecolor` or
 * `24bit` means 24-bit colour; a `TERM` naming 256 colours means the xterm palette; any
 * other terminal gets the 16 basic colours, which every one has.
 */

/** The colour depth styles are drawn in. */
export type ColorLevel = "none" | "16" | "256" | "truecolor";

/** The colour depth for `env`. */
export function colorLevel(env: Record<string, string | undefined>): ColorLevel {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return "none";
  const term = env.TERM ?? "";
  if (term === "dumb") return "none";
  const colorterm = (env.COLORTERM ?? "").toLowerCase();
  if (colorterm === "truecolor" || colorterm === "24bit") return "truecolor";
  if (/256(col)?/.test(term)) return "256";
  return "16";
}
