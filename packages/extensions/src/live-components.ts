/**
 * The seam that lets pi's component UI (`ctx.ui.setWidget` with a factory, `setFooter`,
 * `setHeader`, `custom()`) reach a client in the same process: the terminal agent draws
 * pi-tui components itself, so it hands the server a `LiveComponentSurface` when it
 * connects in-process, and the thread's `ctx.ui` passes the extension's factories to it
 * unchanged. Nothing here crosses a process boundary: a client over stdio, a socket or ACP
 * has no surface, and those calls stay inert there (with a warning naming the call).
 */

/** pi's component factories, opaque to the server: the surface calls them with its own TUI. */
export type ComponentFactory = (...args: never[]) => unknown;

/** How `custom()` shows its component. */
export interface CustomComponentOptions {
  overlay?: boolean;
  overlayOptions?: unknown;
  onHandle?: (handle: unknown) => void;
}

/** What a same-process client that draws components offers the threads it is subscribed to. */
export interface LiveComponentSurface {
  setWidget(
    threadId: string,
    key: string,
    factory: ComponentFactory | undefined,
    placement: "aboveEditor" | "belowEditor",
  ): void;
  setFooter(threadId: string, factory: ComponentFactory | undefined): void;
  setHeader(threadId: string, factory: ComponentFactory | undefined): void;
  /** pi's `registerMessageRenderer`: draws the thread's custom messages of `customType` (undefined: ours again). */
  setMessageRenderer(threadId: string, customType: string, renderer: ComponentFactory | undefined): void;
  /** Shows the component with the keyboard until it calls `done(result)`; resolves with that result. */
  custom(threadId: string, factory: ComponentFactory, options: CustomComponentOptions): Promise<unknown>;
}
