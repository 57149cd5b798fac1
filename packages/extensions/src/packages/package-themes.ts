/**
 * The themes installed packages carry (pi's `themes` resource: the manifest's `themes`
 * entries, else a `themes/` folder), read as pi writes them: a JSON file with a `name`, a
 * `colors` table by pi's colour names, and `vars` those colours may name instead of a hex
 * value. Only hex colours are kept; the terminal maps the names it knows onto its own roles.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { listPackages, type PackageContext } from "./package-manager.ts";
import { packageResourcePaths } from "./package-manifest.ts";

/** One theme a package offers. */
export interface PackageTheme {
  name: string;
  path: string;
  /** pi's colour names to `#rrggbb`. */
  colors: Record<string, string>;
}

const HEX = /^#[0-9a-f]{6}$/i;

function themeFiles(path: string): string[] {
  try {
    if (statSync(path).isDirectory()) {
      return readdirSync(path)
        .filter((name) => name.endsWith(".json"))
        .sort()
        .map((name) => join(path, name));
    }
  } catch {
    return [];
  }
  return path.endsWith(".json") ? [path] : [];
}

/** Reads one theme file; a problem is a warning naming the file. */
export function readThemeFile(path: string): PackageTheme | string {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    return `theme ${path} is not readable JSON: ${(error as Error).message}`;
  }
  const theme = raw as { name?: unknown; colors?: unknown; vars?: unknown };
  if (typeof theme.colors !== "object" || theme.colors === null) return `theme ${path} has no colors`;
  const vars =
    typeof theme.vars === "object" && theme.vars !== null ? (theme.vars as Record<string, unknown>) : {};
  const colors: Record<string, string> = {};
  for (const [key, value] of Object.entries(theme.colors as Record<string, unknown>)) {
    const hex = typeof value === "string" && !value.startsWith("#") ? vars[value] : value;
    if (typeof hex === "string" && HEX.test(hex)) colors[key] = hex.toLowerCase();
  }
  const name = typeof theme.name === "string" && theme.name !== "" ? theme.name : basename(path, ".json");
  return { name, path, colors };
}

/** Every installed package's themes (user scope, then project), first name wins. */
export async function packageThemes(
  context: Omit<PackageContext, "scope">,
): Promise<{ themes: PackageTheme[]; warnings: string[] }> {
  const themes: PackageTheme[] = [];
  const warnings: string[] = [];
  for (const listed of await listPackages(context)) {
    if (listed.installedAt === undefined) continue;
    for (const resource of packageResourcePaths(listed.installedAt, "themes")) {
      for (const file of themeFiles(resource)) {
        const read = readThemeFile(file);
        if (typeof read === "string") warnings.push(read);
        else if (!themes.some((t) => t.name === read.name)) themes.push(read);
      }
    }
  }
  return { themes, warnings };
}
