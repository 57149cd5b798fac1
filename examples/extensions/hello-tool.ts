/**
 * A tool the model can call: `hello` greets someone and says which project it runs in.
 * `ctx.cwd` is the thread's working directory, never the server process's.
 */
import type { ExtensionAPI } from "@knightcode/extensions";
import { Type } from "typebox";

export default function helloTool(knightcode: ExtensionAPI) {
  knightcode.registerTool({
    name: "hello",
    label: "Hello",
    description: "Greets a person by name.",
    parameters: Type.Object({ name: Type.String({ description: "Who to greet" }) }),
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      return {
        content: [{ type: "text", text: `Hello, ${params.name}, from ${ctx.cwd}` }],
        details: { greeted: params.name },
      };
    },
  });
}
