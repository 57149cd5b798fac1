/**
 * Which variant of the theme the terminal gets: the `theme` setting when it says `dark`
 * or `light`; for `auto` (the default) the terminal's answer to the background query,
 * else `COLORFGBG`, else dark. Any other value names a theme an installed package offers
 * (pi's `themes` resource): its colours replace the built-in ones for the roles it names,
 * over the variant `auto` picks. Decided after the first frame, which is drawn at once
 * with the environment's guess and redrawn only if the choice differs.
 */
import type { AppServerClient } from "@knightcode/app-server-protocol";
import { type ThemeVariant, usePackageColors } from "./ui/palette.ts";
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
  cwd: string = process.cwd(),
): Promise<void> {
  const setting = await client.request("config/read", {}).then(
    (read) => read.settings.theme,
    () => undefined,
  );
  let chosen: ThemeVariant | undefined;
  let repaint = false;
  if (setting === "dark" || setting === "light") chosen = setting;
  else {
    if (setting !== undefined && setting !== "auto") {
      const theme = typeof setting === "string" ? await packageTheme(setting, cwd) : undefined;
      if (theme) {
        usePackageColors(theme.colors);
        repaint = true;
      } else
        warn(
          `theme ${JSON.stringify(setting)} is not one of ${THEME_SETTINGS.join(", ")} or an installed package's theme; using auto`,
        );
    }
    chosen = (await background) ?? themeVariant();
  }
  if (setThemeVariant(chosen) || repaint) screen.redrawAll();
}

/** The installed packages' theme of that name (the agent dir's and the project's packages). */
async function packageTheme(
  name: string,
  cwd: string,
): Promise<{ colors: Record<string, string> } | undefined> {
  return (await installedThemes(cwd)).find((theme) => theme.name === name);
}

/** Every value the `theme` setting can take here: auto, dark, light and the packages' theme names. */
export async function themeSettingValues(cwd: string): Promise<string[]> {
  const names = (await installedThemes(cwd)).map((theme) => theme.name);
  return [
    ...THEME_SETTINGS,
    ...names.filter((name) => !(THEME_SETTINGS as readonly string[]).includes(name)),
  ];
}

/** The themes the installed packages offer; none when they cannot be listed. */
async function installedThemes(cwd: string): Promise<{ name: string; colors: Record<string, string> }[]> {
  try {
    const [{ packageThemes }, { resolveAgentDir }] = await Promise.all([
      import("@knightcode/extensions"),
      import("@knightcode/config"),
    ]);
    return (await packageThemes({ agentDir: resolveAgentDir(process.env), cwd })).themes;
  } catch {
    return [];
  }
}
