/**
 * Which variant of the theme the terminal gets: the `theme` setting when it says `dark`
 * or `light`; for `auto` (the default) the terminal's answer to the background query,
 * else `COLORFGBG`, else dark. Decided after the first frame, which is drawn at once
 * with the environment's guess and redrawn only if the choice differs.
 */
import type { AppServerClient } from "@knightcode/app-server-protocol";
import type { ThemeVariant } from "./ui/palette.ts";
import type { Screen } from "./ui/screen.ts";
import { setThemeVariant, themeVariant } from "./ui/style.ts";

/** The values the `theme` setting takes. */
export const THEME_SETTINGS = ["auto", "dark", "light"] as const;

/** How long the terminal has to answer the background query. */
export const BACKGROUND_QUERY_TIMEOUT_MS = 150;

/**
 * Applies the setting (read with `config/read`) or, for `auto`, the `background` answer;
 * `warn` hears of a setting that is none of the three values.
 */
export async function chooseTheme(
  screen: Screen,
  client: AppServerClient,
  background: Promise<ThemeVariant | undefined>,
  warn: (message: string) => void,
): Promise<void> {
  const setting = await client.request("config/read", {}).then(
    (read) => read.settings.theme,
    () => undefined,
  );
  let chosen: ThemeVariant | undefined;
  if (setting === "dark" || setting === "light") chosen = setting;
  else {
    if (setting !== undefined && setting !== "auto")
      warn(`theme ${JSON.stringify(setting)} is not one of ${THEME_SETTINGS.join(", ")}; using auto`);
    chosen = (await background) ?? themeVariant();
  }
  if (setThemeVariant(chosen)) screen.redrawAll();
}
