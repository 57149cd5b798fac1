import { describe, expect, test } from "bun:test";
import { parseFrontmatter } from "../src/index.ts";

describe("frontmatter", () => {
  test("splits YAML fields from the body, folding multi-line values", () => {
    const doc = parseFrontmatter("---\nname: pdf\ndescription: >\n  Work with\n  PDF files\n---\n# Body\n");
    expect(doc.fields).toEqual({ name: "pdf", description: "Work with PDF files\n" });
    expect(doc.body).toBe("# Body\n");
  });

  test("no fence means no fields; CRLF and BOM are tolerated", () => {
    expect(parseFrontmatter("plain text")).toEqual({ fields: {}, body: "plain text" });
    expect(parseFrontmatter("\uFEFF---\r\nname: x\r\n---\r\nbody")).toEqual({
      fields: { name: "x" },
      body: "body",
    });
  });

  test("an unclosed fence is body text", () => {
    expect(parseFrontmatter("---\nname: x\nno end").fields).toEqual({});
  });

  test("invalid YAML or a non-mapping throws a readable error", () => {
    expect(() => parseFrontmatter("---\nname: [x\n---\n")).toThrow("invalid frontmatter");
    expect(() => parseFrontmatter("---\n- a\n- b\n---\n")).toThrow("expected key: value pairs");
  });
});
