/**
 * The UI of a thread nobody can answer: dialogs resolve at once to their "no answer"
 * value and display calls do nothing, so an extension never waits on a UI that is not
 * there. A client with real dialogs passes its own `ExtensionUIContext` instead.
 */
import type { ExtensionUIContext } from "./api-types.ts";

/** Builds the no-UI context (one per thread, so editor text stays per thread). */
export function createNoUI(): ExtensionUIContext {
  let editorText = "";
  return {
    select: async () => undefined,
    confirm: async () => false,
    input: async () => undefined,
    editor: async () => undefined,
    notify: () => {},
    setStatus: () => {},
    setWorkingMessage: () => {},
    setWorkingIndicator: () => {},
    setWorkingVisible: () => {},
    setWidget: () => {},
    setTitle: () => {},
    setEditorText: (text) => {
      editorText = text;
    },
    getEditorText: () => editorText,
    pasteToEditor: (text) => {
      editorText += text;
    },
  };
}
