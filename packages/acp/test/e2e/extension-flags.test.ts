/**
 * `knightcode acp` takes extension flags like `app-server` does: the extension reads the
 * passed value through `getFlag`, and a flag no extension registers reaches the editor
 * (and stderr) as a warning of the session it opened.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { textReply } from "@knightcode/testkit";
import { acpWorld, startAcp } from "../support/acp-child.ts";

const TIMEOUT = 60_000;
const EXTENSION = join(import.meta.dir, "..", "fixtures", "persona-flag.ts");

describe("knightcode acp: extension flags", () => {
  test(
    "getFlag sees --persona; an unregistered --frobnicate is a warning of the new session",
    async () => {
      await using world = await acpWorld();
      await using acp = await startAcp(world, {
        args: ["-e", EXTENSION, "--persona", "pirate", "--frobnicate"],
      });
      const { sessionId } = await acp.agent.request("session/new", { cwd: world.agent.cwd, mcpServers: [] });
      const warned = await acp.waitForUpdate(
        (u, s) =>
          s === sessionId &&
          u.sessionUpdate === "agent_message_chunk" &&
          u.content.type === "text" &&
          u.content.text.includes("Extension flags"),
      );
      if (warned.sessionUpdate !== "agent_message_chunk" || warned.content.type !== "text") {
        throw new Error("unreachable");
      }
      expect(warned.content.text).toBe("Warning (extension): Extension flags: unknown option '--frobnicate'");
      expect(acp.stderr()).toContain("Extension flags: unknown option '--frobnicate'");
      world.mock.enqueue(textReply("Arr."));
      const ran = await acp.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "hi" }],
      });
      expect(ran.stopReason).toBe("end_turn");
      expect(JSON.stringify(world.mock.requests.at(-1)!.body)).toContain("persona=pirate");
    },
    TIMEOUT,
  );
});
