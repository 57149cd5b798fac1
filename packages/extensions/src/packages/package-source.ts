/**
 * Package sources as settings and `knightcode install` take them (pi's forms):
 * `npm:<name>[@version]`, `git:<url>[@ref]` (also `https://…`/`ssh://…` URLs), and local
 * paths — a folder or file used in place, or an npm tarball (`.tgz`) installed like a
 * registry package. A source's `key` identifies the package regardless of version or ref.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

export type PackageSource =
  | { type: "npm"; raw: string; spec: string; name: string; version?: string; key: string }
  | { type: "tarball"; raw: string; path: string; key: string }
  | { type: "git"; raw: string; url: string; ref?: string; dir: string; key: string }
  | { type: "local"; raw: string; path: string; key: string };

/** A source that cannot be parsed. */
export class PackageSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PackageSourceError";
  }
}

const NPM_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;

function expandPath(path: string, base: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return join(homedir(), path.slice(2));
  return isAbsolute(path) ? path : resolve(base, path);
}

/** `@scope/name@1.2.3` -> name and version. */
function splitNpmSpec(spec: string): { name: string; version?: string } {
  const at = spec.lastIndexOf("@");
  if (at > 0) return { name: spec.slice(0, at), version: spec.slice(at + 1) };
  return { name: spec };
}

/** `github.com/u/r@v1`, `git@github.com:u/r`, `https://…` -> clone URL, ref and a folder name. */
function parseGit(raw: string, rest: string): PackageSource {
  let body = rest;
  let ref: string | undefined;
  // a ref follows the last "@" after the host part (not the user of git@host)
  const at = body.lastIndexOf("@");
  if (at > body.indexOf("/") && at > body.indexOf(":") + 1 && at !== -1) {
    ref = body.slice(at + 1);
    body = body.slice(0, at);
  }
  let url: string;
  if (/^[a-z+]+:\/\//.test(body)) url = body;
  else if (/^[\w.-]+@[\w.-]+:/.test(body)) url = body;
  else url = `https://${body}`;
  const path = url
    .replace(/^[a-z+]+:\/\//, "")
    .replace(/^[\w.-]+@/, "")
    .replace(":", "/")
    .replace(/\.git$/, "")
    .replace(/[^\w./-]/g, "_");
  if (path === "" || path.split("/").some((part) => part === "..")) {
    throw new PackageSourceError(`Not a git source: ${raw}`);
  }
  return {
    type: "git",
    raw,
    url,
    ...(ref ? { ref } : {}),
    dir: path,
    key: `git:${url.replace(/\.git$/, "")}`,
  };
}

/** Parses a source; relative local paths resolve against `base`. */
export function parsePackageSource(raw: string, base: string): PackageSource {
  const source = raw.trim();
  if (source === "") throw new PackageSourceError("A package source is empty");
  if (source.startsWith("npm:")) {
    const spec = source.slice(4);
    const { name, version } = splitNpmSpec(spec);
    if (!NPM_NAME.test(name) || version === "") {
      throw new PackageSourceError(`Not an npm package name: ${source}`);
    }
    return { type: "npm", raw: source, spec, name, ...(version ? { version } : {}), key: `npm:${name}` };
  }
  if (source.startsWith("git:")) return parseGit(source, source.slice(4));
  if (/^(https?|ssh|git):\/\//.test(source)) return parseGit(source, source);
  const path = expandPath(source, base);
  if (/\.(tgz|tar\.gz)$/.test(path)) return { type: "tarball", raw: source, path, key: `tarball:${path}` };
  return { type: "local", raw: source, path, key: `local:${path}` };
}

/** The source as settings record it (local paths absolute, so any settings file can hold them). */
export function recordedSource(source: PackageSource): string {
  return source.type === "local" || source.type === "tarball" ? source.path : source.raw;
}
