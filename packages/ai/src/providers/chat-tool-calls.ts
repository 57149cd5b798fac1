/**
 * Assembles Chat Completions tool calls from their streamed fragments, as real servers send
 * them rather than as the OpenAI reference does:
 *
 * - a fragment belongs to a call by `index` when it has one, else by `id`, else by its
 *   position in the delta's `tool_calls` (Gemini's compatible endpoint sends parallel calls
 *   in one delta with ids but no index);
 * - a new `id` at an index whose call already has a different one starts a new call (Ollama
 *   reuses index 0 for every call);
 * - a call that never gets an id (vLLM) gets a generated unique one, so its result can be
 *   matched to it on the next request;
 * - arguments sent as a JSON object instead of a string (an old LiteLLM bug) are serialized,
 *   and a complete argument object repeated whole in a later fragment is taken once.
 */
import type { AssistantMessageBuilder } from "../message-builder.ts";

/** One element of `delta.tool_calls`, typed loosely: servers differ from the OpenAI types. */
export interface ToolCallFragment {
  index?: unknown;
  id?: unknown;
  function?: { name?: unknown; arguments?: unknown } | null;
  extra_content?: { google?: { thought_signature?: unknown } | null } | null;
}

interface Slot {
  /** Content index in the builder. */
  content: number;
  /** Whether the server named this call (a generated id may still be replaced). */
  named: boolean;
  raw: string;
  /** A complete argument object that arrived whole after the streamed one. */
  whole?: string;
}

/** A call id for a server that sent none: random, so unique within and across sessions. */
export function generatedCallId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

export class ChatToolCalls {
  readonly #slots: Slot[] = [];
  readonly #byIndex = new Map<number, Slot>();
  readonly #byId = new Map<string, Slot>();

  /** `beforeStart` runs before a call starts (the provider closes its open text block). */
  constructor(
    private readonly builder: AssistantMessageBuilder,
    private readonly beforeStart: () => void,
  ) {}

  get size(): number {
    return this.#slots.length;
  }

  /** Applies the `tool_calls` of one delta. */
  add(fragments: readonly ToolCallFragment[]): void {
    for (let position = 0; position < fragments.length; position++) {
      const fragment = fragments[position];
      if (fragment && typeof fragment === "object") this.#apply(fragment, position);
    }
  }

  /** Ends every call, with its arguments parsed once. */
  close(): void {
    for (const slot of this.#slots) this.builder.end(slot.content, slot.whole ?? slot.raw);
  }

  #apply(fragment: ToolCallFragment, position: number): void {
    const id = typeof fragment.id === "string" && fragment.id !== "" ? fragment.id : undefined;
    const index = typeof fragment.index === "number" ? fragment.index : undefined;
    const name = typeof fragment.function?.name === "string" ? fragment.function.name : undefined;
    let slot = this.#find(id, index, position);
    if (!slot) {
      this.beforeStart();
      slot = {
        content: this.builder.toolCallStart(id ?? generatedCallId(), name ?? ""),
        named: id !== undefined,
        raw: "",
      };
      this.#slots.push(slot);
      this.#byIndex.set(index ?? position, slot);
      if (id) this.#byId.set(id, slot);
    } else {
      if (id && !slot.named) {
        slot.named = true;
        this.#byId.set(id, slot);
      }
      this.builder.toolCallPatch(slot.content, { id, name });
    }
    const signature = fragment.extra_content?.google?.thought_signature;
    if (typeof signature === "string" && signature !== "") {
      this.builder.toolCallPatch(slot.content, { thoughtSignature: signature });
    }
    this.#arguments(slot, fragment.function?.arguments);
  }

  #find(id: string | undefined, index: number | undefined, position: number): Slot | undefined {
    if (id) {
      const slot = this.#byId.get(id);
      if (slot) return slot;
    }
    if (index !== undefined) {
      const slot = this.#byIndex.get(index);
      // The same index with a new id is a new call, unless the call there had no id yet.
      if (slot && !(id && slot.named)) return slot;
      return undefined;
    }
    // Neither id nor index: the fragment continues the call at its position.
    return id ? undefined : this.#byIndex.get(position);
  }

  #arguments(slot: Slot, value: unknown): void {
    if (value === undefined || value === null || value === "") return;
    const text = typeof value === "string" ? value : JSON.stringify(value);
    // A complete object after a complete object restates the arguments (some servers repeat
    // them whole in a trailing fragment): the call keeps one of them.
    if (
      slot.raw !== "" &&
      text.charCodeAt(0) === 123 /* { */ &&
      isJsonObject(slot.raw) &&
      isJsonObject(text)
    ) {
      slot.whole = text;
      return;
    }
    slot.raw += text;
    this.builder.toolCallDelta(slot.content, text);
  }
}
