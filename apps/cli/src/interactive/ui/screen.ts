/**
 * The terminal screen: pi-tui's TUI on the process terminal, rendering inline into the
 * normal scrollback (no alternate screen, no mouse capture) and redrawing only changed
 * lines. The layout is fixed: the header (the first screen's, or an extension's in its
 * place), the conversation, a status area (spinner, queue, prompts), the extension
 * widgets above the editor, the editor, those below it, the footer.
 */
import {
  type Component,
  Container,
  type OverlayHandle,
  type OverlayOptions,
  ProcessTerminal,
  TUI,
} from "@mariozechner/pi-tui";
import type { Block } from "./block.ts";
import type { ThemeVariant } from "./palette.ts";
import { PromptEditor } from "./prompt-editor.ts";
import { BACKGROUND_QUERY, isBackgroundReply, variantFromReply } from "./terminal-background.ts";

/** An ordered group of blocks that can grow and shrink. */
export class BlockList implements Block {
  /** @internal the library container holding the blocks */
  readonly container = new Container();
  private readonly blocks: Block[] = [];
  add(block: Block): void {
    this.blocks.push(block);
    this.container.addChild(block as Component);
  }
  remove(block: Block): void {
    const at = this.blocks.indexOf(block);
    if (at < 0) return;
    this.blocks.splice(at, 1);
    this.container.removeChild(block as Component);
  }
  clear(): void {
    for (const block of this.blocks.splice(0)) this.container.removeChild(block as Component);
  }
  get size(): number {
    return this.blocks.length;
  }
  render(width: number): string[] {
    return this.container.render(width);
  }
  invalidate(): void {
    this.container.invalidate();
  }
}

/** Sees each key before the focused block; returns true to consume it. */
export type KeyListener = (data: string) => boolean;

/** The whole terminal UI surface. */
export class Screen {
  /** Above the conversation: the first screen's header, and an extension's (`ctx.ui.setHeader`), which hides ours. */
  readonly header = new BlockList();
  readonly conversation = new BlockList();
  readonly status = new BlockList();
  readonly aboveEditor = new BlockList();
  readonly belowEditor = new BlockList();
  private readonly tui: TUI;
  /** Whether a title was set, so the terminal's own title is put back on stop. */
  private titleSaved = false;
  private readonly editorSlot = new Container();
  private readonly footerSlot = new Container();
  private focused: Block | undefined;

  constructor() {
    this.tui = new TUI(new ProcessTerminal());
    this.tui.addChild(this.header.container);
    this.tui.addChild(this.conversation.container);
    this.tui.addChild(this.status.container);
    this.tui.addChild(this.aboveEditor.container);
    this.tui.addChild(this.editorSlot);
    this.tui.addChild(this.belowEditor.container);
    this.tui.addChild(this.footerSlot);
  }

  /** The message editor, bound to this screen (it scrolls within the terminal height). */
  createEditor(): PromptEditor {
    return new PromptEditor(this.tui);
  }

  /**
   * pi-tui's TUI itself, for extensions' component factories (they take it to request
   * frames): the one place the library object leaves this file.
   */
  get library(): TUI {
    return this.tui;
  }

  /** Draws `block` over the screen (pi's overlays); the handle hides it. */
  showOverlay(block: Block, options?: OverlayOptions): OverlayHandle {
    return this.tui.showOverlay(block as Component, options);
  }

  get columns(): number {
    return this.tui.terminal.columns;
  }

  setEditor(block: Block): void {
    this.editorSlot.clear();
    this.editorSlot.addChild(block as Component);
  }

  setFooter(block: Block): void {
    this.footerSlot.clear();
    this.footerSlot.addChild(block as Component);
  }

  /** Gives `block` the keyboard. */
  focus(block: Block): void {
    this.focused = block;
    this.tui.setFocus(block as Component);
  }

  get focusedBlock(): Block | undefined {
    return this.focused;
  }

  onKey(listener: KeyListener): () => void {
    return this.tui.addInputListener((data) => (listener(data) ? { consume: true } : undefined));
  }

  /** Schedules a frame; frames are coalesced, so calling this per delta is cheap. */
  requestRender(): void {
    this.tui.requestRender();
  }

  /** Redraws everything from scratch (after blocks changed how they render). */
  redrawAll(): void {
    this.tui.invalidate();
    this.tui.requestRender(true);
  }

  /**
   * Asks the terminal for its background colour (OSC 11) and resolves with the variant
   * that fits it, or undefined when no answer came within `timeoutMs` (most terminals
   * that do not know the query stay silent). The answer is taken off the input, also a
   * late one, so it never lands in the editor.
   */
  queryBackground(timeoutMs: number): Promise<ThemeVariant | undefined> {
    return new Promise((resolve) => {
      let settled = false;
      const finish = (variant: ThemeVariant | undefined) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(variant);
      };
      this.tui.addInputListener((data) => {
        if (!isBackgroundReply(data)) return undefined;
        finish(variantFromReply(data));
        return { consume: true };
      });
      const timer = setTimeout(() => finish(undefined), timeoutMs);
      this.tui.terminal.write(BACKGROUND_QUERY);
    });
  }

  /** Starts drawing; resolves once the first frame is written (its timer is queued first). */
  async start(): Promise<void> {
    this.tui.start();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }

  /**
   * Sets the window title (OSC 0). The first time, the terminal's own title is pushed on
   * its title stack (XTWINOPS 22), so `stop` can pop it back; terminals without the
   * stack ignore both.
   */
  setTitle(title: string): void {
    if (!this.titleSaved) this.tui.terminal.write("\u001b[22;0t");
    this.titleSaved = true;
    this.tui.terminal.setTitle(title);
  }

  /** Puts back the terminal's own title, if one was set (a later `setTitle` saves it again). */
  restoreTitle(): void {
    if (this.titleSaved) this.tui.terminal.write("\u001b[23;0t");
    this.titleSaved = false;
  }

  /** Restores the terminal (cooked mode, cursor, title) and leaves the last frame in the scrollback. */
  stop(): void {
    this.restoreTitle();
    this.tui.stop();
  }
}
