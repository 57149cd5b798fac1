/**
 * Extension widgets (`extension/widgetChanged`): keyed blocks of lines above or below
 * the editor, in the order their keys first appeared. A key set again keeps its place
 * (or moves when its placement changed); `lines: null` removes it.
 */
import type { ExtensionWidgetChangedNotification } from "@knightcode/app-server-protocol";
import type { Block } from "./ui/block.ts";
import type { BlockList } from "./ui/screen.ts";
import { keepColoursOnly } from "./ui/terminal-safe.ts";
import { fitLine } from "./ui/text.ts";

/** The widgets of one placement, drawn one after another. */
class WidgetArea implements Block {
  readonly widgets = new Map<string, string[]>();
  render(width: number): string[] {
    return [...this.widgets.values()].flat().map((line) => fitLine(line, width));
  }
}

/** Both widget areas, over the screen's two slots beside the editor. */
export class ExtensionWidgets {
  private readonly above = new WidgetArea();
  private readonly below = new WidgetArea();

  constructor(aboveSlot: BlockList, belowSlot: BlockList) {
    aboveSlot.add(this.above);
    belowSlot.add(this.below);
  }

  /** Removes every widget (another thread opened). */
  clear(): void {
    this.above.widgets.clear();
    this.below.widgets.clear();
  }

  /** Applies one notification. */
  apply(change: Pick<ExtensionWidgetChangedNotification, "key" | "lines" | "placement">): void {
    const area = change.placement === "belowEditor" ? this.below : this.above;
    const other = area === this.above ? this.below : this.above;
    other.widgets.delete(change.key);
    if (change.lines === null) area.widgets.delete(change.key);
    else area.widgets.set(change.key, change.lines.map(keepColoursOnly));
  }
}
