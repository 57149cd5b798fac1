/**
 * Time as the manager sees it. Idle unloading schedules through this so tests can move
 * time forward instead of sleeping ten minutes.
 */

/** A cancellable timer handle. */
export interface ClockTimer {
  cancel(): void;
}

/** The manager's time source. */
export interface Clock {
  now(): number;
  setTimeout(callback: () => void, ms: number): ClockTimer;
}

/** The real clock; timers do not keep the process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    const handle = setTimeout(callback, ms);
    handle.unref?.();
    return { cancel: () => clearTimeout(handle) };
  },
};

/** A clock that moves only when told to: `advance(ms)` fires every timer that falls due. */
export class ManualClock implements Clock {
  private time: number;
  private timers: { at: number; callback: () => void; cancelled: boolean }[] = [];

  constructor(start = 0) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): ClockTimer {
    const timer = { at: this.time + ms, callback, cancelled: false };
    this.timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** Moves time forward, firing due timers in time order. */
  advance(ms: number): void {
    const target = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => !t.cancelled && t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.cancelled = true;
      this.time = due.at;
      due.callback();
    }
    this.timers = this.timers.filter((t) => !t.cancelled);
    this.time = target;
  }

  /** Timers still waiting. */
  pending(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
}
