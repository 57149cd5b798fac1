/**
 * The conversation as blocks: one per item (user text, streamed markdown, dimmed
 * reasoning, tool calls, compactions), turn outcomes (errors, interruptions), and notes
 * from the UI itself. Live notifications and resumed history go through the same
 * `showItem`, so a resumed session looks like it did while it ran.
 */
import type { ThreadItem, ToolCallItem, Turn } from "@knightcode/app-server-protocol";
import { ToolCallBlock } from "./tool-call-block.ts";
import type { Block } from "./ui/block.ts";
import type { BlockList } from "./ui/screen.ts";
import { style } from "./ui/style.ts";
import { MarkdownBlock, TextBlock, wrapLines } from "./ui/text.ts";

/** A reasoning block: dimmed, the first lines only unless expanded. */
class ReasoningBlock implements Block {
  private readonly markdown = new MarkdownBlock("", { dim: true });
  private text = "";
  constructor(private readonly expanded: () => boolean) {}
  setText(text: string): void {
    this.text = text;
    this.markdown.setText(text);
  }
  render(width: number): string[] {
    if (this.text.trim() === "") return [];
    const lines = this.markdown.render(width);
    if (this.expanded() || lines.length <= 3) return [style.dim(style.italic("thinking")), ...lines];
    return [
      style.dim(style.italic("thinking")),
      ...lines.slice(0, 2),
      style.muted(`  … ${lines.length - 2} more lines (Ctrl+O)`),
    ];
  }
}

/** Spacing between conversation entries. */
const gap: Block = { render: () => [""] };

/** Renders items into the screen's conversation list. */
export class ConversationView {
  private readonly blocks = new Map<string, Block>();
  private readonly texts = new Map<string, string>();
  private expandedAll = false;
  /** An extension's renderer for a custom message (pi's `registerMessageRenderer`), when it has one. */
  renderExtension:
    | ((
        item: { customType: string; text: string; details?: unknown },
        expanded: () => boolean,
      ) => Block | undefined)
    | undefined;

  constructor(
    private readonly list: BlockList,
    private readonly changed: () => void,
  ) {}

  /** Ctrl+O: expand or collapse every tool block and reasoning. */
  toggleExpanded(): void {
    this.expandedAll = !this.expandedAll;
    this.changed();
  }

  get expanded(): boolean {
    return this.expandedAll;
  }

  private key(turnId: string, itemId: string): string {
    return `${turnId}\u0000${itemId}`;
  }

  /** Adds or updates an item's block. */
  showItem(turnId: string, item: ThreadItem): void {
    const key = this.key(turnId, item.id);
    const existing = this.blocks.get(key);
    if (existing instanceof ToolCallBlock && item.type === "toolCall") {
      existing.update(item);
    } else if (existing instanceof MarkdownBlock && item.type === "agentMessage") {
      existing.setText(item.text);
      this.texts.set(key, item.text);
    } else if (existing instanceof ReasoningBlock && item.type === "reasoning") {
      existing.setText(item.text);
      this.texts.set(key, item.text);
    } else if (existing === undefined) {
      const block = this.blockFor(item);
      if (block === undefined) return;
      this.blocks.set(key, block);
      this.list.add(gap);
      this.list.add(block);
    }
    this.changed();
  }

  /** Appends a streamed delta to an agent message or reasoning block. */
  appendDelta(turnId: string, itemId: string, kind: "agentMessage" | "reasoning", delta: string): void {
    const key = this.key(turnId, itemId);
    if (!this.blocks.has(key)) this.showItem(turnId, { id: itemId, type: kind, text: "" });
    const text = (this.texts.get(key) ?? "") + delta;
    this.texts.set(key, text);
    const block = this.blocks.get(key);
    if (block instanceof MarkdownBlock || block instanceof ReasoningBlock) block.setText(text);
    this.changed();
  }

  /** An item the server took back (a retried reply). */
  removeItem(turnId: string, itemId: string): void {
    const key = this.key(turnId, itemId);
    const block = this.blocks.get(key);
    if (block === undefined) return;
    this.list.remove(block);
    this.blocks.delete(key);
    this.texts.delete(key);
    this.changed();
  }

  /** A turn ended: failures name `error.kind`, interruptions say so. */
  showOutcome(turn: Turn): void {
    if (turn.status === "failed") {
      const kind = turn.error?.kind ?? "other";
      this.note(style.error(`✗ Turn failed (${kind}): ${turn.error?.message ?? "unknown error"}`));
    } else if (turn.status === "interrupted") {
      this.note(style.warning("⊘ Interrupted"));
    }
  }

  /** A line from the UI itself (command results, errors, hints). */
  note(text: string): void {
    const block: Block = { render: (width) => wrapLines(text, width) };
    this.list.add(gap);
    this.list.add(block);
    this.changed();
  }

  /** Live output block for `!cmd`, updated in place. */
  liveText(title: string): { set(text: string): void } {
    const block = new TextBlock(title);
    this.list.add(gap);
    this.list.add(block);
    this.changed();
    return {
      set: (text) => {
        block.setText(text);
        this.changed();
      },
    };
  }

  /** Empties the view (a new or switched session). */
  clear(): void {
    this.list.clear();
    this.blocks.clear();
    this.texts.clear();
    this.changed();
  }

  private blockFor(item: ThreadItem): Block | undefined {
    switch (item.type) {
      case "userMessage":
        return { render: (width) => wrapLines(`${style.user("›")} ${item.text}`, width) };
      case "agentMessage": {
        const block = new MarkdownBlock(item.text);
        return block;
      }
      case "reasoning": {
        const block = new ReasoningBlock(() => this.expandedAll);
        block.setText(item.text);
        return block;
      }
      case "toolCall":
        return new ToolCallBlock(item as ToolCallItem, () => this.expandedAll);
      case "compaction":
        return {
          render: (width) =>
            wrapLines(
              style.accent(`⟳ Compacted ${item.tokensBefore.toLocaleString("en-US")} tokens into a summary`),
              width,
            ),
        };
      case "extension": {
        if (item.text === undefined) return undefined;
        const own = this.renderExtension?.(
          { customType: item.customType, text: item.text, details: item.details },
          () => this.expandedAll,
        );
        return own ?? { render: (width) => wrapLines(style.muted(item.text ?? ""), width) };
      }
    }
  }
}
