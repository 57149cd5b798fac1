/**
 * The prompt box and its actions. Idle: Send starts a turn. While a turn runs: Steer
 * hands the text to it, Queue saves it for a turn of its own, Interrupt stops the turn.
 * Enter sends (or steers), Shift+Enter is a new line. Queued inputs are listed with a
 * remove button; steers not yet delivered are shown too.
 */
import type { QueueState } from "@knightcode/app-server-protocol";
import { h, replaceChildren } from "./dom.ts";

export interface ComposerActions {
  send(text: string): Promise<void>;
  steer(text: string): Promise<void>;
  queue(text: string): Promise<void>;
  interrupt(): Promise<void>;
  removeQueued(queueId: string): Promise<void>;
}

/** The composer's elements and state. */
export class Composer {
  private running = false;
  private enabled = false;
  private readonly input: HTMLTextAreaElement;
  private readonly buttons: Record<"send" | "steer" | "queue" | "interrupt", HTMLButtonElement>;

  constructor(
    form: HTMLFormElement,
    private readonly queueList: HTMLElement,
    private readonly actions: ComposerActions,
  ) {
    this.input = form.querySelector("textarea")!;
    const button = (name: string) => form.querySelector<HTMLButtonElement>(`button[name="${name}"]`)!;
    this.buttons = {
      send: button("send"),
      steer: button("steer"),
      queue: button("queue"),
      interrupt: button("interrupt"),
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.submit(this.running ? "steer" : "send");
    });
    this.input.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        void this.submit(this.running ? "steer" : "send");
      }
    });
    this.buttons.queue.addEventListener("click", () => void this.submit("queue"));
    this.buttons.interrupt.addEventListener("click", () => void this.actions.interrupt());
    this.refresh();
  }

  /** Whether a thread is open (and connected), and whether its turn runs. */
  setState(enabled: boolean, running: boolean): void {
    this.enabled = enabled;
    this.running = running;
    this.refresh();
  }

  /** Draws the queue of the open thread. */
  showQueue(queue: QueueState): void {
    const steering = queue.steering.map((text) => h("li", { class: "queued steering" }, `steer: ${text}`));
    const followUp = queue.followUp.map((entry) =>
      h(
        "li",
        { class: "queued follow-up", "data-queue-id": entry.id },
        `queued: ${entry.text} `,
        h("button", { class: "link", onclick: () => void this.actions.removeQueued(entry.id) }, "remove"),
      ),
    );
    replaceChildren(this.queueList, ...steering, ...followUp);
  }

  /** Puts text back (a failed send, an interrupt that dropped queued inputs). */
  restore(text: string): void {
    this.input.value = this.input.value === "" ? text : `${this.input.value}\n${text}`;
  }

  private async submit(action: "send" | "steer" | "queue"): Promise<void> {
    const text = this.input.value.trim();
    if (text === "" || !this.enabled) return;
    this.input.value = "";
    try {
      await this.actions[action](text);
    } catch {
      // nothing typed is lost: the app reports the error, the text goes back
      this.restore(text);
    }
  }

  private refresh(): void {
    this.input.disabled = !this.enabled;
    this.buttons.send.hidden = this.running;
    this.buttons.steer.hidden = !this.running;
    this.buttons.queue.hidden = !this.running;
    this.buttons.interrupt.hidden = !this.running;
    for (const button of Object.values(this.buttons)) button.disabled = !this.enabled;
    this.input.placeholder = this.running
      ? "Steer the running turn (Enter), or queue a follow-up"
      : "Ask KnightCode (Enter to send, Shift+Enter for a new line)";
  }
}
