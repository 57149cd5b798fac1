/**
 * Text from an extension drawn on the terminal: colour (SGR) sequences stay, every
 * other escape sequence and control character goes, so a widget line or a title cannot
 * move the cursor, clear the screen, or close the title's OSC sequence early.
 */

const ESC = "\u001b";
/** SGR (`ESC [ … m`), any other CSI, an OSC up to BEL or ST, any other two-byte escape, or a lone control character. */
const SEQUENCE = new RegExp(
  `${ESC}\\[[0-9;:]*m|${ESC}\\[[0-?]*[ -/]*[@-~]|${ESC}\\][^\\u0007\\u001b]*(?:\\u0007|${ESC}\\\\)?|${ESC}[ -~]?|[\\u0000-\\u001f\\u007f-\\u009f]`,
  "g",
);
const SGR = new RegExp(`^${ESC}\\[[0-9;:]*m$`);

/** `text` with its colours and without any other control. */
export function keepColoursOnly(text: string): string {
  return text.replaceAll("\t", " ").replace(SEQUENCE, (match) => (SGR.test(match) ? match : ""));
}

/** `text` with no control at all (for a window title, which cannot show colour). */
export function plainText(text: string): string {
  return keepColoursOnly(text).replace(new RegExp(`${ESC}\\[[0-9;:]*m`, "g"), "");
}
