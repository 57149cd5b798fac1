/** Terminal styles: plain SGR sequences, none at all under `NO_COLOR`. */

const enabled = process.env.NO_COLOR === undefined || process.env.NO_COLOR === "";

/** A style that wraps text in SGR `open` … `close` (the identity under `NO_COLOR`). */
export function sgr(open: string, close: string): (text: string) => string {
  return enabled ? (text) => `\u001b[${open}m${text}\u001b[${close}m` : (text) => text;
}

/** The styles the UI uses, by meaning rather than by color. */
export const style = {
  bold: sgr("1", "22"),
  dim: sgr("2", "22"),
  italic: sgr("3", "23"),
  underline: sgr("4", "24"),
  strikethrough: sgr("9", "29"),
  accent: sgr("36", "39"),
  success: sgr("32", "39"),
  warning: sgr("33", "39"),
  error: sgr("31", "39"),
  added: sgr("32", "39"),
  removed: sgr("31", "39"),
  muted: sgr("90", "39"),
  user: sgr("1;34", "22;39"),
};
