/**
 * The component contract of the terminal UI: a block renders itself to lines of at
 * most `width` columns. It is pi-tui's model, restated here so the rest of the CLI
 * depends on this file and not on the library.
 */

/** Something that draws itself as terminal lines. */
export interface Block {
  render(width: number): string[];
  /** Receives keys while focused. */
  handleInput?(data: string): void;
  /** Drops cached lines (theme or width changes). */
  invalidate?(): void;
}

/** A block made from a render function, re-run on every frame. */
export function dynamicBlock(render: (width: number) => string[]): Block {
  return { render };
}
