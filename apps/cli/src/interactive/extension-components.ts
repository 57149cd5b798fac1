/**
 * pi's component UI in the terminal: the `LiveComponentSurface` this process's server
 * hands extensions' factories to (`@knightcode/extensions` live-components.ts). Component
 * widgets join the widget slots beside the editor, a footer or header replaces ours (or
 * fills the empty header slot), and `ctx.ui.custom()` takes the editor's place, or floats
 * over the screen as an overlay, with the keyboard until it calls `done`. The factories get
 * pi-tui's own TUI, a theme and pi's footer data, as in pi.
 *
 * This is the one part of the terminal that is not a protocol client: components are live
 * objects with render and key methods, which no message can carry. The seam is explicit:
 * only the in-process connection's `components` option reaches here, and every other
 * client (desktop, ACP, `--remote`) gets the calls as inert, with a warning.
 */
import type { ComponentFactory, CustomComponentOptions, LiveComponentSurface } from "@knightcode/extensions";
import { plainTheme } from "@knightcode/extensions/pi-theme";
import type { OverlayHandle, OverlayOptions } from "@mariozechner/pi-tui";
import type { ConversationView } from "./conversation-view.ts";
import type { Block } from "./ui/block.ts";
import type { BlockList, Screen } from "./ui/screen.ts";

/** A component an extension made: a block that may want to be told it is gone. */
type ExtensionComponent = Block & { dispose?(): void };

/** What the surface needs from the app, once it exists (the editor and footer to go back to). */
export interface ComponentHome {
  editor: Block;
  footer: Block;
  /** Where custom messages are drawn: an extension's renderer takes over its type's. */
  view: ConversationView;
  /** The thread the terminal shows: calls for another thread's components are ignored. */
  threadId(): string | undefined;
}

/** pi's `Theme` for components: colours are left to the component's own text. */
const THEME = plainTheme();

/** pi's footer data: what the built-in footer knows that a component cannot read itself. */
const FOOTER_DATA = {
  getGitBranch: () => null,
  getExtensionStatuses: () => new Map<string, string>(),
  getAvailableProviderCount: () => 0,
  onBranchChange: () => () => {},
};

/** pi's keybindings manager, as far as components ask it: no rebinding, no extra keys. */
const KEYBINDINGS = {
  matches: () => false,
  getKeys: () => [],
  getDisplayString: () => "",
};

function disposeOf(component: ExtensionComponent | undefined): void {
  try {
    component?.dispose?.();
  } catch {
    // an extension's teardown failing leaves the screen as it is
  }
}

export class TerminalComponents implements LiveComponentSurface {
  private home: ComponentHome | undefined;
  private readonly widgets = new Map<string, { block: ExtensionComponent; slot: BlockList }>();
  private footer: ExtensionComponent | undefined;
  private header: ExtensionComponent | undefined;
  private readonly renderers = new Map<string, ComponentFactory>();

  constructor(private readonly screen: Screen) {}

  /** The app is built: components can go back to its editor and footer. */
  attach(home: ComponentHome): void {
    this.home = home;
    home.view.renderExtension = (item, expanded) => this.renderMessage(item, expanded);
  }

  setMessageRenderer(threadId: string, customType: string, renderer: ComponentFactory | undefined): void {
    if (!this.shown(threadId)) return;
    if (renderer) this.renderers.set(customType, renderer);
    else this.renderers.delete(customType);
  }

  /** A custom message through its extension's renderer, as pi calls it; a throw or no component: ours. */
  private renderMessage(
    item: { customType: string; text: string; details?: unknown },
    expanded: () => boolean,
  ): Block | undefined {
    const renderer = this.renderers.get(item.customType) as
      | ((message: unknown, options: { expanded: boolean }, theme: unknown) => ExtensionComponent | undefined)
      | undefined;
    if (!renderer) return undefined;
    const message = {
      role: "custom",
      customType: item.customType,
      content: item.text,
      display: true,
      details: item.details,
    };
    try {
      return renderer(message, { expanded: expanded() }, THEME);
    } catch {
      return undefined;
    }
  }

  private shown(threadId: string): boolean {
    const current = this.home?.threadId();
    return current === undefined || current === threadId;
  }

  private make(factory: ComponentFactory, ...args: unknown[]): ExtensionComponent {
    return (factory as (...a: unknown[]) => ExtensionComponent)(this.screen.library, THEME, ...args);
  }

  setWidget(
    threadId: string,
    key: string,
    factory: ComponentFactory | undefined,
    placement: "aboveEditor" | "belowEditor",
  ): void {
    if (!this.shown(threadId)) return;
    const old = this.widgets.get(key);
    if (old) {
      old.slot.remove(old.block);
      disposeOf(old.block);
      this.widgets.delete(key);
    }
    if (factory) {
      const slot = placement === "belowEditor" ? this.screen.belowEditor : this.screen.aboveEditor;
      const block = this.make(factory);
      slot.add(block);
      this.widgets.set(key, { block, slot });
    }
    this.screen.requestRender();
  }

  setFooter(threadId: string, factory: ComponentFactory | undefined): void {
    if (!this.shown(threadId)) return;
    disposeOf(this.footer);
    this.footer = factory ? this.make(factory, FOOTER_DATA) : undefined;
    const block = this.footer ?? this.home?.footer;
    if (block) this.screen.setFooter(block);
    this.screen.requestRender();
  }

  setHeader(threadId: string, factory: ComponentFactory | undefined): void {
    if (!this.shown(threadId)) return;
    if (this.header) this.screen.header.remove(this.header);
    disposeOf(this.header);
    this.header = factory ? this.make(factory) : undefined;
    if (this.header) this.screen.header.add(this.header);
    this.screen.requestRender();
  }

  async custom(
    threadId: string,
    factory: ComponentFactory,
    options: CustomComponentOptions,
  ): Promise<unknown> {
    if (!this.shown(threadId)) return undefined;
    let finish: (result: unknown) => void = () => {};
    const finished = new Promise<unknown>((resolve) => {
      finish = resolve;
    });
    const component = await this.make(factory, KEYBINDINGS, (result: unknown) => finish(result));
    let overlay: OverlayHandle | undefined;
    if (options.overlay === true) {
      const layout = options.overlayOptions as OverlayOptions | (() => OverlayOptions) | undefined;
      overlay = this.screen.showOverlay(component, typeof layout === "function" ? layout() : layout);
      options.onHandle?.(overlay);
    } else {
      this.screen.setEditor(component);
    }
    this.screen.focus(component);
    this.screen.requestRender();
    try {
      return await finished;
    } finally {
      overlay?.hide();
      const editor = this.home?.editor;
      if (editor) {
        if (overlay === undefined) this.screen.setEditor(editor);
        this.screen.focus(editor);
      }
      disposeOf(component);
      this.screen.requestRender();
    }
  }
}
