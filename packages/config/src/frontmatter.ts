/** YAML frontmatter at the head of a Markdown file (skills, prompt templates). */

/** A Markdown file split into its frontmatter fields and body. */
export interface FrontmatterDocument {
  fields: Record<string, unknown>;
  body: string;
}

/** Splits `---`-fenced YAML frontmatter from the body; throws with a readable message on bad YAML. */
export function parseFrontmatter(text: string): FrontmatterDocument {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!normalized.startsWith("---\n")) return { fields: {}, body: normalized };
  const end = normalized.indexOf("\n---", 3);
  if (end === -1) return { fields: {}, body: normalized };
  const afterFence = normalized.indexOf("\n", end + 4);
  const closingLine = normalized.slice(end + 1, afterFence === -1 ? undefined : afterFence);
  if (closingLine.trim() !== "---") return { fields: {}, body: normalized };
  const yaml = normalized.slice(4, end);
  const body = afterFence === -1 ? "" : normalized.slice(afterFence + 1);
  let fields: unknown;
  try {
    fields = yaml.trim() === "" ? {} : Bun.YAML.parse(yaml);
  } catch (error) {
    throw new Error(`invalid frontmatter: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof fields !== "object" || fields === null || Array.isArray(fields)) {
    throw new Error("invalid frontmatter: expected key: value pairs");
  }
  return { fields: fields as Record<string, unknown>, body };
}
