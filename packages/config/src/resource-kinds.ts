/**
 * Finding and validating each resource kind inside one directory or one path:
 * extensions (modules), skills (`SKILL.md`), prompt templates (`*.md`) and themes
 * (`*.json`). Loading extension code is not done here; a refused item becomes a warning.
 */
import { readdir, stat } from "node:fs/promises";
import { basename, extname, join } from "node:path";
import { isErrnoCode } from "./errors.ts";
import { parseFrontmatter } from "./frontmatter.ts";
import { parseFailureWarning, parseJsonObject, readRegularFile } from "./json-file.ts";
import { scrubWithWarnings } from "./settings-file.ts";
import type { ConfigWarning } from "./warning.ts";

/** Where a resource was found. */
export type ResourceOrigin = "agent" | "project" | "settings" | "package";

/** An extension module to load. */
export interface ExtensionResource {
  path: string;
  origin: ResourceOrigin;
}

/** A skill: its `SKILL.md` and the folder holding its supporting files. */
export interface SkillResource {
  name: string;
  description: string;
  path: string;
  baseDir: string;
  origin: ResourceOrigin;
}

/** A prompt template exposed as a slash command. */
export interface PromptTemplateResource {
  name: string;
  description: string;
  content: string;
  path: string;
  origin: ResourceOrigin;
}

/** A theme file. */
export interface ThemeResource {
  name: string;
  path: string;
  theme: Record<string, unknown>;
  origin: ResourceOrigin;
}

/** Items found in one place plus the refusals. */
export interface Found<T> {
  items: T[];
  warnings: ConfigWarning[];
}

const EXTENSION_FILE = /\.(ts|js|mjs|mts)$/;
const INDEX_FILES = ["index.ts", "index.js", "index.mjs", "index.mts"];
const MAX_SKILL_DEPTH = 4;

/**
 * Kind of a path (symlinks followed): "file" (regular only), "dir", "other" (a FIFO,
 * socket or device, never read: it could block or never end) or null when absent.
 */
export async function pathKind(path: string): Promise<"file" | "dir" | "other" | null> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? "dir" : info.isFile() ? "file" : "other";
  } catch (error) {
    if (isErrnoCode(error, "ENOENT", "ENOTDIR")) return null;
    throw error;
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch (error) {
    if (isErrnoCode(error, "ENOENT", "ENOTDIR")) return [];
    throw error;
  }
}

function failure(source: ConfigWarning["source"], path: string, reason: unknown): ConfigWarning {
  const detail = reason instanceof Error ? reason.message : String(reason);
  return { source, path, message: `Not loading ${path}: ${detail}` };
}

async function indexOf(dir: string): Promise<string | null> {
  for (const name of INDEX_FILES) {
    if ((await pathKind(join(dir, name))) === "file") return join(dir, name);
  }
  return null;
}

/** Extension modules in a folder: top-level module files and subfolders with an index module. */
export async function extensionsIn(dir: string, origin: ResourceOrigin): Promise<Found<ExtensionResource>> {
  const items: ExtensionResource[] = [];
  for (const name of await listDir(dir)) {
    if (name.startsWith(".")) continue;
    const path = join(dir, name);
    const kind = await pathKind(path);
    if (kind === "file" && EXTENSION_FILE.test(name) && !name.endsWith(".d.ts")) items.push({ path, origin });
    else if (kind === "dir") {
      const index = await indexOf(path);
      if (index !== null) items.push({ path: index, origin });
    }
  }
  return { items, warnings: [] };
}

/** Reads a resource file; a FIFO, device or anything else irregular is refused, not read. */
async function readResourceFile(path: string): Promise<string> {
  const text = await readRegularFile(path);
  if (text === null) throw new Error("no such file");
  return text;
}

const NOT_REGULAR = "not a regular file or folder";

/** An extension named by an explicit path (settings, package): a module file or a folder. */
export async function extensionsAt(path: string, origin: ResourceOrigin): Promise<Found<ExtensionResource>> {
  const kind = await pathKind(path);
  if (kind === null) return { items: [], warnings: [failure("extension", path, "no such file or folder")] };
  if (kind === "other") return { items: [], warnings: [failure("extension", path, NOT_REGULAR)] };
  if (kind === "file") {
    if (EXTENSION_FILE.test(path)) return { items: [{ path, origin }], warnings: [] };
    return { items: [], warnings: [failure("extension", path, "not a .ts, .js, .mjs or .mts module")] };
  }
  const index = await indexOf(path);
  if (index !== null) return { items: [{ path: index, origin }], warnings: [] };
  return extensionsIn(path, origin);
}

async function skillFromFile(path: string, origin: ResourceOrigin): Promise<Found<SkillResource>> {
  try {
    const { fields } = parseFrontmatter(await readResourceFile(path));
    const name = typeof fields.name === "string" ? fields.name.trim() : "";
    const description = typeof fields.description === "string" ? fields.description.trim() : "";
    if (name === "") throw new Error("frontmatter has no name");
    if (description === "") throw new Error("frontmatter has no description");
    const baseDir = path.slice(0, path.length - basename(path).length - 1);
    return { items: [{ name, description, path, baseDir, origin }], warnings: [] };
  } catch (error) {
    return { items: [], warnings: [failure("settings", path, error)] };
  }
}

/** Skills below a folder: each subfolder holding `SKILL.md` is one skill (searched a few levels deep). */
export async function skillsIn(
  dir: string,
  origin: ResourceOrigin,
  depth = 0,
): Promise<Found<SkillResource>> {
  const found: Found<SkillResource> = { items: [], warnings: [] };
  if ((await pathKind(join(dir, "SKILL.md"))) === "file") return skillFromFile(join(dir, "SKILL.md"), origin);
  if (depth >= MAX_SKILL_DEPTH) return found;
  for (const name of await listDir(dir)) {
    if (name.startsWith(".") || name === "node_modules") continue;
    const path = join(dir, name);
    if ((await pathKind(path)) !== "dir") continue;
    const inner = await skillsIn(path, origin, depth + 1);
    found.items.push(...inner.items);
    found.warnings.push(...inner.warnings);
  }
  return found;
}

/** Skills named by an explicit path: a skill folder, a folder of skills, or a skill Markdown file. */
export async function skillsAt(path: string, origin: ResourceOrigin): Promise<Found<SkillResource>> {
  const kind = await pathKind(path);
  if (kind === null) return { items: [], warnings: [failure("settings", path, "no such file or folder")] };
  if (kind === "other") return { items: [], warnings: [failure("settings", path, NOT_REGULAR)] };
  if (kind === "file") return skillFromFile(path, origin);
  return skillsIn(path, origin);
}

async function promptFromFile(path: string, origin: ResourceOrigin): Promise<Found<PromptTemplateResource>> {
  try {
    const { fields, body } = parseFrontmatter(await readResourceFile(path));
    const name = basename(path, extname(path));
    let description = typeof fields.description === "string" ? fields.description.trim() : "";
    if (description === "") {
      const firstLine = body.split("\n").find((line) => line.trim() !== "") ?? "";
      description = firstLine.trim().replace(/^#+\s*/, "");
      if (description.length > 80) description = `${description.slice(0, 77)}...`;
    }
    return { items: [{ name, description, content: body, path, origin }], warnings: [] };
  } catch (error) {
    return { items: [], warnings: [failure("settings", path, error)] };
  }
}

/** Prompt templates: the `*.md` files directly in a folder, or one named file. */
export async function promptsAt(
  path: string,
  origin: ResourceOrigin,
  explicit: boolean,
): Promise<Found<PromptTemplateResource>> {
  const kind = await pathKind(path);
  if (kind === null) {
    return { items: [], warnings: explicit ? [failure("settings", path, "no such file or folder")] : [] };
  }
  if (kind === "other")
    return { items: [], warnings: explicit ? [failure("settings", path, NOT_REGULAR)] : [] };
  if (kind === "file") return promptFromFile(path, origin);
  const found: Found<PromptTemplateResource> = { items: [], warnings: [] };
  for (const name of await listDir(path)) {
    if (!name.endsWith(".md") || name.startsWith(".")) continue;
    if ((await pathKind(join(path, name))) !== "file") continue;
    const one = await promptFromFile(join(path, name), origin);
    found.items.push(...one.items);
    found.warnings.push(...one.warnings);
  }
  return found;
}

async function themeFromFile(path: string, origin: ResourceOrigin): Promise<Found<ThemeResource>> {
  try {
    const parsed = parseJsonObject(await readResourceFile(path));
    if (!parsed.ok) return { items: [], warnings: [parseFailureWarning(path, parsed.failure)] };
    const warnings = scrubWithWarnings(path, parsed.value);
    const declared = parsed.value.name;
    const name =
      typeof declared === "string" && declared.trim() !== "" ? declared.trim() : basename(path, ".json");
    return { items: [{ name, path, theme: parsed.value, origin }], warnings };
  } catch (error) {
    return { items: [], warnings: [failure("settings", path, error)] };
  }
}

/** Themes: the `*.json` files directly in a folder, or one named file. */
export async function themesAt(
  path: string,
  origin: ResourceOrigin,
  explicit: boolean,
): Promise<Found<ThemeResource>> {
  const kind = await pathKind(path);
  if (kind === null) {
    return { items: [], warnings: explicit ? [failure("settings", path, "no such file or folder")] : [] };
  }
  if (kind === "other")
    return { items: [], warnings: explicit ? [failure("settings", path, NOT_REGULAR)] : [] };
  if (kind === "file") return themeFromFile(path, origin);
  const found: Found<ThemeResource> = { items: [], warnings: [] };
  for (const name of await listDir(path)) {
    if (!name.endsWith(".json") || name.startsWith(".")) continue;
    if ((await pathKind(join(path, name))) !== "file") continue;
    const one = await themeFromFile(join(path, name), origin);
    found.items.push(...one.items);
    found.warnings.push(...one.warnings);
  }
  return found;
}
