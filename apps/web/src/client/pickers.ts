/**
 * The model and approval-mode pickers. With a thread open they show and change its
 * settings (`thread/settings/update`); with none they hold what the next new thread
 * starts with.
 */
import type { ApprovalMode, ModelRef, ProtocolModel, Thread } from "@knightcode/app-server-protocol";
import { h, replaceChildren } from "./dom.ts";

const MODES: { mode: ApprovalMode; label: string }[] = [
  { mode: "ask", label: "Ask before edits and commands" },
  { mode: "autoEdit", label: "Auto-edit, ask for commands" },
  { mode: "fullAccess", label: "Full access" },
];

/** `provider/id`, the picker's value for a model. */
export function modelKey(model: ModelRef): string {
  return `${model.provider}/${model.id}`;
}

/** The model a picker value names. */
export function parseModelKey(key: string): ModelRef | undefined {
  const slash = key.indexOf("/");
  return slash <= 0 ? undefined : { provider: key.slice(0, slash), id: key.slice(slash + 1) };
}

export interface PickerActions {
  setModel(model: ModelRef): void;
  setApprovalMode(mode: ApprovalMode): void;
}

/** The two selects. */
export class Pickers {
  constructor(
    private readonly model: HTMLSelectElement,
    private readonly approval: HTMLSelectElement,
    actions: PickerActions,
  ) {
    replaceChildren(approval, ...MODES.map(({ mode, label }) => h("option", { value: mode }, label)));
    model.addEventListener("change", () => {
      const ref = parseModelKey(model.value);
      if (ref !== undefined) actions.setModel(ref);
    });
    approval.addEventListener("change", () => actions.setApprovalMode(approval.value as ApprovalMode));
  }

  /** Lists the models; those without credentials are shown but cannot be picked. */
  setModels(models: ProtocolModel[], selected: ModelRef | undefined): void {
    const options = models.map((model) =>
      h(
        "option",
        { value: modelKey(model), disabled: !model.available },
        `${model.name} (${model.provider})${model.available ? "" : " — no credentials"}`,
      ),
    );
    replaceChildren(this.model, h("option", { value: "" }, "Default model"), ...options);
    this.model.value = selected === undefined ? "" : modelKey(selected);
  }

  /** Shows a thread's settings. */
  showThread(thread: Thread): void {
    if (thread.model !== undefined) this.model.value = modelKey(thread.model);
    if (thread.approvalMode !== undefined) this.approval.value = thread.approvalMode;
  }

  /** The picked model, if any. */
  pickedModel(): ModelRef | undefined {
    return parseModelKey(this.model.value);
  }

  /** The picked approval mode. */
  pickedApprovalMode(): ApprovalMode {
    return this.approval.value as ApprovalMode;
  }
}
