/**
 * Disk steps of an owned transcript beyond plain appends: whole writes, setting a
 * torn tail aside, and rewriting an old-version file in the current version.
 */
import { closeSync, fsyncSync, openSync, renameSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { type ParsedSession, serializeLine } from "./format.ts";

/** Writes all of `data` at the file's end; a regular file takes it in one `write`. */
export function writeAll(fd: number, data: Buffer): void {
  let offset = 0;
  while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
}

/** Keeps the bytes of a torn last line in a sibling file instead of destroying them. */
export function saveTornTail(realPath: string, torn: Uint8Array): string {
  for (let attempt = 0; ; attempt++) {
    const target = join(
      dirname(realPath),
      `${basename(realPath)}.torn-${Date.now()}${attempt ? `-${attempt}` : ""}`,
    );
    let fd: number;
    try {
      fd = openSync(target, "wx", 0o644);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "EEXIST" && attempt < 100) continue;
      throw error;
    }
    try {
      writeAll(fd, Buffer.from(torn));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return target;
  }
}

/** Rewrites an old-version transcript in the current version atomically (temp file, fsync, rename). */
export function rewriteMigrated(realPath: string, parsed: ParsedSession): void {
  const temp = `${realPath}.migrate-${process.pid}-${Date.now()}`;
  const fd = openSync(temp, "wx", 0o644);
  try {
    const headerLine = Buffer.from(serializeLine(parsed.header));
    const chunks: Buffer[] = [headerLine];
    parsed.lineBytes = parsed.entries.map((entry) => {
      const line = Buffer.from(serializeLine(entry));
      chunks.push(line);
      return line.length;
    });
    writeAll(fd, Buffer.concat(chunks));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, realPath);
  parsed.missingFinalNewline = false;
}
