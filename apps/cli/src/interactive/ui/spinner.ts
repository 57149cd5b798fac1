/**
 * "Working" line with a spinner and elapsed time. Its timer runs only while it spins,
 * so an idle UI schedules nothing and writes nothing.
 */
import type { Block } from "./block.ts";
import { style } from "./style.ts";
import { fitLine } from "./text.ts";

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
const FRAME_MS = 80;
/** An extension's frame rate is held to this range: faster only costs writes, slower stalls the clock. */
const MIN_FRAME_MS = 40;
const MAX_FRAME_MS = 1_000;

/** An extension's indicator (`ctx.ui.setWorkingIndicator`): frames drawn as given; none hides the glyph. */
export interface SpinnerIndicator {
  frames: string[];
  intervalMs?: number;
}

/** A spinner block; `onFrame` asks the screen for a frame. */
export class Spinner implements Block {
  private timer: ReturnType<typeof setInterval> | undefined;
  private startedAt = 0;
  private frame = 0;
  private label = "Working";
  private hint = "Esc to interrupt";
  /** An extension's working message (`ctx.ui.setWorkingMessage`); it replaces the label until cleared. */
  private message: string | undefined;
  private frames: readonly string[] = FRAMES;
  private frameMs = FRAME_MS;
  /** `ctx.ui.setWorkingVisible(false)` hides the row; the turn and its Esc work as before. */
  private visible = true;

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
    this.tick();
    this.onFrame();
  }

  private tick(): void {
    this.timer = setInterval(() => {
      this.frame = (this.frame + 1) % Math.max(1, this.frames.length);
      if (this.visible) this.onFrame();
    }, this.frameMs);
  }

  /** Uses an extension's frames and rate; undefined restores the default spinner. */
  setIndicator(indicator: SpinnerIndicator | undefined): void {
    this.frames = indicator === undefined ? FRAMES : indicator.frames;
    const wanted = indicator?.intervalMs ?? FRAME_MS;
    this.frameMs = Math.min(MAX_FRAME_MS, Math.max(MIN_FRAME_MS, wanted));
    this.frame = 0;
    if (this.timer !== undefined) {
      clearInterval(this.timer);
      this.tick();
      this.onFrame();
    }
  }

  /** Shows or hides the working row. */
  setVisible(visible: boolean): void {
    this.visible = visible;
    if (this.timer !== undefined) this.onFrame();
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
    if (this.timer === undefined || !this.visible) return [];
    const seconds = Math.floor((Date.now() - this.startedAt) / 1000);
    const label = this.message ?? `${this.label}…`;
    const glyph = this.frames === FRAMES ? style.accent(FRAMES[this.frame]!) : this.frames[this.frame];
    const text = `${label} ${style.muted(`(${seconds}s · ${this.hint})`)}`;
    return [fitLine(glyph === undefined || glyph === "" ? text : `${glyph} ${text}`, width)];
  }
}
