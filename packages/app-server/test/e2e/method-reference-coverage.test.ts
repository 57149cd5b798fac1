/**
 * Keeps the end-to-end suite in step with docs/protocol-reference.md: every method under "Method
 * reference" there needs an e2e test named after it, every error code its
 * section names needs a test naming both, and the common errors are exercised for every
 * method through the shared param tables. A method added to the reference without tests
 * fails here.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ERROR_CODES } from "@knightcode/app-server-protocol";
import { MALFORMED, WELL_FORMED } from "./method-tables.ts";

/** The repository's protocol reference; its "Method reference" chapter lists the methods checked here. */
const REFERENCE = join(import.meta.dir, "..", "..", "..", "..", "docs", "protocol-reference.md");

interface MethodSection {
  method: string;
  errors: string[];
}

/** The "Method reference" chapter: its common errors and one section per method with the codes it names. */
function methodReference(markdown: string): { common: string[]; sections: MethodSection[] } {
  const start = markdown.indexOf("\n## Method reference");
  if (start < 0) throw new Error("docs/protocol-reference.md has no Method reference chapter");
  const end = markdown.indexOf("\n## ", start + 1);
  const chapter = markdown.slice(start, end < 0 ? undefined : end);
  const codes = new Set<string>(ERROR_CODES);
  const namedCodes = (text: string) => [
    ...new Set([...text.matchAll(/`([a-zA-Z]+)`/g)].map((m) => m[1]!).filter((c) => codes.has(c))),
  ];
  const [intro = "", ...parts] = chapter.split(/\n### /);
  const commonSentence = /Common errors are ([^.]+)\./.exec(intro)?.[1] ?? "";
  const sections = parts.map((part) => {
    const method = /^`([^`]+)`/.exec(part)?.[1];
    if (method === undefined) throw new Error(`a method section without a method name: ${part.slice(0, 40)}`);
    return { method, errors: namedCodes(part) };
  });
  return { common: namedCodes(commonSentence), sections };
}

/** The titles of every test in the e2e files (string and template literals alike). */
function e2eTestTitles(): string[] {
  const titles: string[] = [];
  for (const name of readdirSync(import.meta.dir)) {
    if (!name.endsWith(".test.ts") || name === "method-reference-coverage.test.ts") continue;
    const source = readFileSync(join(import.meta.dir, name), "utf8");
    for (const match of source.matchAll(/\btest\(\s*(["`])((?:\\.|(?!\1)[\s\S])*)\1/g))
      titles.push(match[2]!);
  }
  return titles;
}

const reference = methodReference(readFileSync(REFERENCE, "utf8"));
const titles = e2eTestTitles();

test("the protocol reference's method reference is found with its common errors", () => {
  expect(reference.common).toEqual(["notInitialized", "invalidParams", "shuttingDown"]);
  expect(reference.sections.map((s) => s.method)).toContain("thread/delete");
  expect(reference.sections.find((s) => s.method === "thread/delete")?.errors.sort()).toEqual([
    "archiveConflict",
    "internal",
    "threadLockedElsewhere",
    "threadNotArchived",
    "threadNotFound",
    "turnInProgress",
  ]);
  expect(titles.length).toBeGreaterThan(20);
});

test("every method in the protocol reference's method reference has an e2e test named after it", () => {
  const untested = reference.sections
    .map((s) => s.method)
    .filter((method) => !titles.some((title) => title.includes(method)));
  expect(untested).toEqual([]);
});

test("every error a method-reference section names has an e2e test naming the method and the error", () => {
  const missing: string[] = [];
  for (const { method, errors } of reference.sections) {
    for (const code of errors) {
      if (!titles.some((title) => title.includes(method) && title.includes(code)))
        missing.push(`${method} ${code}`);
    }
  }
  expect(missing).toEqual([]);
});

test("the common errors are exercised for every method-reference method", () => {
  const methods = reference.sections.map((s) => s.method).sort();
  expect(Object.keys(WELL_FORMED).sort()).toEqual(methods);
  expect(Object.keys(MALFORMED).sort()).toEqual(methods);
  for (const code of reference.common) {
    expect([code, titles.some((title) => title.includes(code))]).toEqual([code, true]);
  }
});
