/**
 * The open thread's turns, drawn from `ThreadState`. Each change redraws only what it
 * touched; streaming redraws are coalesced to one per animation frame, since rendering
 * markdown for every delta of a long reply would cost each delta the whole reply.
 */
import { diffView } from "./diff-view.ts";
import { h, replaceChildren } from "./dom.ts";
import { itemView, redrawItem } from "./item-views.ts";
import type { Change, ThreadState, TurnView } from "./thread-state.ts";

function turnFooter(turn: TurnView): HTMLElement {
  const label =
    turn.status === "inProgress"
      ? (turn.retrying ?? "working…")
      : turn.status === "failed"
        ? `failed: ${turn.error?.message ?? "unknown error"}`
        : turn.status;
  return h("div", { class: `turn-status status-${turn.status}` }, label);
}

/** The turn's changes, folded (a reader who opens it keeps it open across redraws). */
function turnDiff(turn: TurnView): HTMLElement {
  const files = (turn.diff!.match(/^diff --git /gm) ?? []).length;
  return h(
    "details",
    { class: "turn-diff", "data-item-id": `${turn.id}:diff` },
    h("summary", {}, `Changes of this turn (${files} file${files === 1 ? "" : "s"})`),
    diffView(turn.diff!),
  );
}

/** Draws a thread's conversation into `root`. */
export class ConversationView {
  private readonly turnElements = new Map<string, HTMLElement>();
  private readonly itemElements = new Map<string, HTMLElement>();
  private readonly dirty = new Map<string, Change>();
  private frame: number | undefined;

  constructor(
    private readonly root: HTMLElement,
    private state: ThreadState | undefined,
  ) {
    // a block the reader opened or shut stays so across redraws
    root.addEventListener("click", (event) => {
      const summary = (event.target as Element).closest("summary");
      const details = summary?.parentElement;
      if (details instanceof HTMLDetailsElement) details.dataset.toggled = "1";
    });
  }

  /** Shows another thread (or none) and draws it whole. */
  show(state: ThreadState | undefined): void {
    this.state = state;
    this.redrawAll();
  }

  /** Draws every turn again (a resume snapshot; with `atTop`, an older page the reader asked for). */
  redrawAll(atTop = false): void {
    this.turnElements.clear();
    this.itemElements.clear();
    this.dirty.clear();
    const turns = this.state?.turns ?? [];
    replaceChildren(this.root, ...turns.map((turn) => this.turnElement(turn)));
    if (atTop) this.root.scrollTop = 0;
    else this.scrollToEnd();
  }

  /** Marks a change to draw on the next frame. */
  update(change: Change): void {
    const key = change.kind === "item" ? `${change.turnId}/${change.itemId}` : change.turnId;
    this.dirty.set(key, change);
    this.frame ??= requestAnimationFrame(() => this.flush());
  }

  private flush(): void {
    this.frame = undefined;
    const nearEnd = this.root.scrollHeight - this.root.scrollTop - this.root.clientHeight < 80;
    for (const change of this.dirty.values()) this.apply(change);
    this.dirty.clear();
    if (nearEnd) this.scrollToEnd();
  }

  private apply(change: Change): void {
    const turn = this.state?.turn(change.turnId);
    if (turn === undefined) return;
    const element = this.turnElements.get(turn.id);
    if (element === undefined) {
      this.root.appendChild(this.turnElement(turn));
      return;
    }
    if (change.kind === "turn") {
      this.redrawTurn(element, turn);
      return;
    }
    const item = turn.items.find((known) => known.id === change.itemId);
    const key = `${turn.id}/${change.itemId}`;
    const old = this.itemElements.get(key);
    if (item === undefined || old === undefined || turn.items.indexOf(item) !== this.position(old)) {
      this.redrawTurn(element, turn);
      return;
    }
    this.itemElements.set(key, redrawItem(old, item));
  }

  /** Draws a turn again, keeping the blocks the reader opened or shut as they were. */
  private redrawTurn(old: HTMLElement, turn: TurnView): void {
    const toggled = new Map<string, boolean>();
    for (const details of old.querySelectorAll<HTMLDetailsElement>("details[data-toggled]")) {
      const id = details.dataset.itemId;
      if (id !== undefined) toggled.set(id, details.open);
    }
    const fresh = this.turnElement(turn);
    for (const details of fresh.querySelectorAll<HTMLDetailsElement>("details[data-item-id]")) {
      const open = toggled.get(details.dataset.itemId!);
      if (open === undefined) continue;
      details.open = open;
      details.dataset.toggled = "1";
    }
    old.replaceWith(fresh);
  }

  private position(element: HTMLElement): number {
    const list = element.parentElement;
    return list === null ? -1 : Array.prototype.indexOf.call(list.children, element);
  }

  private turnElement(turn: TurnView): HTMLElement {
    const items = h("div", { class: "items" });
    for (const item of turn.items) {
      const element = itemView(item);
      this.itemElements.set(`${turn.id}/${item.id}`, element);
      items.appendChild(element);
    }
    const section = h(
      "section",
      { class: `turn status-${turn.status}`, "data-turn-id": turn.id },
      items,
      ...(turn.diff ? [turnDiff(turn)] : []),
      turnFooter(turn),
    );
    this.turnElements.set(turn.id, section);
    return section;
  }

  private scrollToEnd(): void {
    this.root.scrollTop = this.root.scrollHeight;
  }
}
