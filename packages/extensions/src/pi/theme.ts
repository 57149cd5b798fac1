/**
 * The theme a pi extension styles text with. Without a terminal there is nothing to
 * colour: every styling call returns its text unchanged, so status texts and messages an
 * extension builds stay readable wherever they end up.
 */

const identity = (text: string) => text;

/** pi's `Theme` with every colour and style a no-op. */
export function plainTheme(): Record<string, unknown> {
  return {
    name: "plain",
    fg: (_color: string, text: string) => text,
    bg: (_color: string, text: string) => text,
    bold: identity,
    italic: identity,
    underline: identity,
    inverse: identity,
    strikethrough: identity,
    dim: identity,
    getFgAnsi: () => "",
    getBgAnsi: () => "",
    getColorMode: () => "truecolor",
    getThinkingBorderColor: () => identity,
    getBashModeBorderColor: () => identity,
  };
}
