/**
 * `knightcode install | remove | list | update`: packages installed into a scope's
 * folder and recorded in that scope's settings `packages` list (the user's settings by
 * default, a trusted project's with `-l`). The list holds the sources as given (local
 * paths made absolute), the same form pi's settings use.
 */
import { existsSync, readFileSync } from "node:fs";
import { agentPaths, projectPaths, trustKey, writeConfig } from "@knightcode/config";
import { type PackageSource, parsePackageSource, recordedSource } from "./package-source.ts";
import {
  type InstallOptions,
  installedDir,
  installedVersion,
  installInto,
  type PackageScope,
  scopeDir,
  uninstallFrom,
} from "./package-store.ts";

/** Where a package command acts. */
export interface PackageContext {
  agentDir: string;
  /** The project folder (the command's cwd). */
  cwd: string;
  scope: PackageScope;
}

/** One recorded package of a scope. */
export interface ListedPackage {
  scope: PackageScope;
  source: string;
  installedAt: string | undefined;
  version: string | undefined;
}

/** The raw `packages` entries of one settings file (strings or `{ source }` objects). */
export function settingsPackages(path: string): unknown[] {
  try {
    const settings = JSON.parse(readFileSync(path, "utf8")) as { packages?: unknown };
    return Array.isArray(settings.packages) ? settings.packages : [];
  } catch {
    return [];
  }
}

/** The source string of a `packages` entry. */
export function entrySource(entry: unknown): string | undefined {
  if (typeof entry === "string") return entry;
  const source = (entry as { source?: unknown } | null)?.source;
  return typeof source === "string" ? source : undefined;
}

async function settingsPath(context: PackageContext): Promise<string> {
  return context.scope === "user"
    ? agentPaths(context.agentDir).settings
    : projectPaths(await trustKey(context.cwd)).settings;
}

async function writePackages(context: PackageContext, packages: unknown[]): Promise<void> {
  await writeConfig({
    agentDir: context.agentDir,
    scope: context.scope === "user" ? "global" : "project",
    key: "packages",
    value: packages,
    cwd: context.cwd,
  });
}

function rootOf(context: PackageContext): string {
  return scopeDir(context.scope, { agentDir: context.agentDir, projectDir: context.cwd });
}

/** The recorded entry with the same package identity, when there is one. */
function sameKey(entries: unknown[], source: PackageSource, base: string): number {
  return entries.findIndex((entry) => {
    const raw = entrySource(entry);
    if (raw === undefined) return false;
    try {
      return parsePackageSource(raw, base).key === source.key;
    } catch {
      return false;
    }
  });
}

/** Installs a source and records it; an already recorded package is replaced by this source. */
export async function installPackage(
  raw: string,
  context: PackageContext,
  options: InstallOptions = {},
): Promise<{ source: string; installedAt: string }> {
  const source = parsePackageSource(raw, context.cwd);
  // refuse before installing anything when the project's settings cannot be written
  const path = await settingsPath(context);
  if (context.scope === "project") await writePackages(context, settingsPackages(path));
  const installedAt = await installInto(source, rootOf(context), options);
  const entries = settingsPackages(path);
  const at = sameKey(entries, source, context.cwd);
  const recorded = recordedSource(source);
  if (at === -1) entries.push(recorded);
  else entries[at] = recorded;
  await writePackages(context, entries);
  return { source: recorded, installedAt };
}

/** Uninstalls a recorded package and drops it from settings; false when it was not recorded. */
export async function removePackage(
  raw: string,
  context: PackageContext,
  options: InstallOptions = {},
): Promise<boolean> {
  const source = parsePackageSource(raw, context.cwd);
  const entries = settingsPackages(await settingsPath(context));
  const at = sameKey(entries, source, context.cwd);
  if (at === -1) return false;
  const recorded = parsePackageSource(entrySource(entries[at])!, context.cwd);
  await uninstallFrom(recorded, rootOf(context), options);
  entries.splice(at, 1);
  await writePackages(context, entries);
  return true;
}

/** The recorded packages of the user and of the project, with where they are installed. */
export async function listPackages(context: Omit<PackageContext, "scope">): Promise<ListedPackage[]> {
  const listed: ListedPackage[] = [];
  for (const scope of ["user", "project"] as const) {
    const scoped = { ...context, scope };
    const root = rootOf(scoped);
    for (const entry of settingsPackages(await settingsPath(scoped))) {
      const raw = entrySource(entry);
      if (raw === undefined) continue;
      let installedAt: string | undefined;
      try {
        const dir = await installedDir(parsePackageSource(raw, context.cwd), root);
        installedAt = existsSync(dir) ? dir : undefined;
      } catch {
        // an unparsable entry or an unreadable tarball: listed as not installed
        installedAt = undefined;
      }
      listed.push({
        scope,
        source: raw,
        installedAt,
        version: installedAt ? installedVersion(installedAt) : undefined,
      });
    }
  }
  return listed;
}

/**
 * Reinstalls the scope's packages that are not pinned (npm without a version, git without
 * a ref), or the one named; local folders are used in place and skipped.
 */
export async function updatePackages(
  context: PackageContext,
  only: string | undefined,
  options: InstallOptions = {},
): Promise<string[]> {
  const entries = settingsPackages(await settingsPath(context));
  const wanted = only === undefined ? undefined : parsePackageSource(only, context.cwd).key;
  const updated: string[] = [];
  for (const entry of entries) {
    const raw = entrySource(entry);
    if (raw === undefined) continue;
    const source = parsePackageSource(raw, context.cwd);
    if (wanted !== undefined && source.key !== wanted) continue;
    const pinned =
      (source.type === "npm" && source.version !== undefined) || (source.type === "git" && source.ref);
    if (source.type === "local" || (pinned && wanted === undefined)) continue;
    await installInto(
      source.type === "npm" ? { ...source, spec: `${source.name}@latest` } : source,
      rootOf(context),
      options,
    );
    updated.push(raw);
  }
  return updated;
}
