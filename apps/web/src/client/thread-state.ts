/**
 * What the page knows of the open thread, as plain data: its turns and their items in
 * order, the queue, usage and the running turn. Notifications apply here and say what
 * changed; the views only draw. Items arrive resolved (no payload references).
 */
import type {
  QueueState,
  Thread,
  ThreadItem,
  TokenUsage,
  Turn,
  TurnError,
  TurnStatus,
} from "@knightcode/app-server-protocol";

/** A turn as the page draws it. */
export interface TurnView {
  id: string;
  status: TurnStatus;
  startedAt: number;
  completedAt?: number;
  error?: TurnError;
  items: ThreadItem[];
  /** Set while the provider call is being retried (`turn/retrying`), until the turn moves on. */
  retrying?: string;
  /** The turn's changes so far as a unified diff (`turn/diff/updated`), in a git checkout. */
  diff?: string;
}

/** What an update touched: a whole turn (added, finished) or one item of it. */
export type Change = { kind: "turn"; turnId: string } | { kind: "item"; turnId: string; itemId: string };

/** Orders items by their latest top-level index; nested calls follow their parent's order of arrival. */
function byIndex(a: ThreadItem, b: ThreadItem): number {
  return (a.index ?? Number.MAX_SAFE_INTEGER) - (b.index ?? Number.MAX_SAFE_INTEGER);
}

/** Turns a protocol turn (items already resolved) into a view. */
export function turnView(turn: Turn, items: ThreadItem[] = []): TurnView {
  return {
    id: turn.id,
    status: turn.status,
    startedAt: turn.startedAt,
    ...(turn.completedAt === undefined ? {} : { completedAt: turn.completedAt }),
    ...(turn.error === undefined ? {} : { error: turn.error }),
    items: [...items].sort(byIndex),
  };
}

/** The open thread. */
export class ThreadState {
  turns: TurnView[] = [];
  /** Cursor of the next older history page, when there is one. */
  olderCursor: string | undefined;
  queue: QueueState = { steering: [], followUp: [] };
  usage: TokenUsage | undefined;

  constructor(public thread: Thread) {}

  /** The running turn, if any. */
  get runningTurn(): TurnView | undefined {
    return this.turns.findLast((turn) => turn.status === "inProgress");
  }

  /** Replaces the history with a resume snapshot (newest page, then the running turn). */
  reset(turns: TurnView[], olderCursor: string | undefined): void {
    this.turns = turns;
    this.olderCursor = olderCursor;
  }

  /** Puts an older page in front. */
  prepend(turns: TurnView[], olderCursor: string | undefined): void {
    const known = new Set(this.turns.map((turn) => turn.id));
    this.turns = [...turns.filter((turn) => !known.has(turn.id)), ...this.turns];
    this.olderCursor = olderCursor;
  }

  /** A turn started, or a running turn's snapshot arrived. */
  upsertTurn(turn: TurnView): Change {
    const at = this.turns.findIndex((known) => known.id === turn.id);
    if (at === -1) this.turns.push(turn);
    else {
      const previous = this.turns[at]!;
      // the turn's diff is the page's own (turn/diff/updated): a summary of the turn has none
      const diff = turn.diff ?? previous.diff;
      this.turns[at] = {
        ...turn,
        items: turn.items.length > 0 ? turn.items : previous.items,
        ...(diff === undefined ? {} : { diff }),
      };
    }
    return { kind: "turn", turnId: turn.id };
  }

  /** A turn finished: status, times and error come from the summary; the items stay. */
  completeTurn(turn: Turn): Change {
    const known = this.turn(turn.id);
    const items = known?.items ?? [];
    return this.upsertTurn({ ...turnView(turn), items });
  }

  /** The provider call failed and is tried again. */
  retrying(turnId: string, why: string): Change {
    const turn = this.turn(turnId) ?? this.placeholder(turnId);
    turn.retrying = why;
    return { kind: "turn", turnId };
  }

  /** The turn's latest diff (`turn/diff/updated`) replaces the one before. */
  turnDiff(turnId: string, diff: string): Change {
    const turn = this.turn(turnId) ?? this.placeholder(turnId);
    turn.diff = diff;
    return { kind: "turn", turnId };
  }

  /** An item started or completed: the newer contents replace the older, then order by index. */
  putItem(turnId: string, item: ThreadItem): Change {
    const turn = this.turn(turnId) ?? this.placeholder(turnId);
    delete turn.retrying;
    const at = turn.items.findIndex((known) => known.id === item.id);
    if (at === -1) turn.items.push(item);
    else turn.items[at] = item;
    turn.items.sort(byIndex);
    return { kind: "item", turnId, itemId: item.id };
  }

  /** An item was withdrawn. */
  removeItem(turnId: string, itemId: string): Change {
    const turn = this.turn(turnId);
    if (turn !== undefined) turn.items = turn.items.filter((item) => item.id !== itemId);
    return { kind: "turn", turnId };
  }

  /** Appends a streamed delta to an agent message or reasoning item. */
  appendDelta(turnId: string, itemId: string, type: "agentMessage" | "reasoning", delta: string): Change {
    const turn = this.turn(turnId) ?? this.placeholder(turnId);
    delete turn.retrying;
    const item = turn.items.find((known) => known.id === itemId);
    if (item === undefined) turn.items.push({ id: itemId, type, text: delta });
    else if (item.type === "agentMessage" || item.type === "reasoning") item.text += delta;
    return { kind: "item", turnId, itemId };
  }

  /** The turn with this ID. */
  turn(turnId: string): TurnView | undefined {
    return this.turns.find((turn) => turn.id === turnId);
  }

  /** An item of a turn. */
  item(turnId: string, itemId: string): ThreadItem | undefined {
    return this.turn(turnId)?.items.find((item) => item.id === itemId);
  }

  /** A turn we have heard items of before its start (a replay that began mid-turn). */
  private placeholder(turnId: string): TurnView {
    const turn: TurnView = { id: turnId, status: "inProgress", startedAt: Date.now(), items: [] };
    this.turns.push(turn);
    return turn;
  }
}
