/**
 * "Working" line with a spinner and elapsed time. Its timer runs only while it spins,
 * so an idle UI schedules nothing and writes nothing.
 */
import type { Block } from "./block.ts";
import { style } from "./style.ts";
import { fitLine } from "./text.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;

/** A spinner block; `onFrame` asks the screen for a frame. */
export class Spinner implements Block {
  private timer: ReturnType<typeof setInterval> | undefined;
  private startedAt = 0;
  private frame = 0;
  private label = "Working";
  private hint = "Esc to interrupt";
  /** An extension's working message (`ctx.ui.setWorkingMessage`); it replaces the label until cleared. */
  private message: string | undefined;

  constructor(private readonly onFrame: () => void) {}

  get spinning(): boolean {
    return this.timer !== undefined;
  }

  start(label = "Working", hint = "Esc to interrupt"): void {
    this.label = label;
    this.hint = hint;
    if (this.timer !== undefined) return;
    this.startedAt = Date.now();
    this.frame = 0;
    this.timer = setInterval(() => {
      this.frame = (this.frame + 1) % FRAMES.length;
      this.onFrame();
    }, FRAME_MS);
    this.onFrame();
  }

  /** Replaces the label with `message` (drawn as given); undefined restores the label. */
  setMessage(message: string | undefined): void {
    this.message = message;
    if (this.timer !== undefined) this.onFrame();
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.onFrame();
  }

  render(width: number): string[] {
    if (this.timer === undefined) return [];
    const seconds = Math.floor((Date.now() - this.startedAt) / 1000);
    const label = this.message ?? `${this.label}…`;
    const line = `${style.accent(FRAMES[this.frame]!)} ${label} ${style.muted(`(${seconds}s · ${this.hint})`)}`;
    return [fitLine(line, width)];
  }
}
