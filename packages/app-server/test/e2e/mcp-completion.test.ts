/**
 * `command/complete` against the real `server-everything`: its `completable-prompt`
 * completes `department`, then `name` narrowed by the department given before it (the
 * context), positionally or as `name=`. Text that is no MCP prompt command is
 * `invalidParams`, an unknown thread `threadNotFound`; a word past the declared
 * arguments and a server without completions get no values.
 */
import { describe, expect, test } from "bun:test";
import { E2E_TIMEOUT, refusal, TARGETS } from "./harness.ts";
import { everythingThread, filesInCwd } from "./mcp-everything.ts";

const PROMPT = "/mcp__everything__completable-prompt";

for (const target of TARGETS) {
  describe(`[${target.name}] MCP prompt argument completion`, () => {
    test(
      "command/complete offers server-everything's values for the argument the last word fills, narrowed by the words before it",
      async () => {
        await using server = await target.start();
        const { threadId } = await everythingThread(server.client, server.agent.cwd);
        const complete = (text: string) => server.client.request("command/complete", { threadId, text });
        expect(await complete(`${PROMPT} `)).toEqual({
          argument: "department",
          prefix: "",
          values: ["Engineering", "Sales", "Marketing", "Support"],
          hasMore: false,
        });
        expect(await complete(`${PROMPT} S`)).toMatchObject({ prefix: "S", values: ["Sales", "Support"] });
        // the department given before narrows the name
        expect(await complete(`${PROMPT} Engineering `)).toMatchObject({
          argument: "name",
          values: ["Alice", "Bob", "Charlie"],
        });
        expect(await complete(`${PROMPT} Sales E`)).toMatchObject({ argument: "name", values: ["Eve"] });
        // name= fills that argument, the other word the one still unset
        expect(await complete(`${PROMPT} name=J Support`)).toMatchObject({
          argument: "department",
          values: ["Support"],
        });
        expect(await complete(`${PROMPT} Support name=`)).toMatchObject({
          argument: "name",
          prefix: "name=",
          values: ["name=John", "name=Kim", "name=Lee"],
        });
        // a word past the declared arguments fills none
        expect(await complete(`${PROMPT} Sales Eve extra`)).toEqual({
          prefix: "extra",
          values: [],
          hasMore: false,
        });
      },
      E2E_TIMEOUT,
    );

    test(
      "command/complete: text that is no MCP prompt command is invalidParams, an unknown thread threadNotFound; a server without completions offers none",
      async () => {
        await using server = await target.start();
        const { threadId } = await everythingThread(server.client, server.agent.cwd, {
          files: filesInCwd(server.agent.cwd),
        });
        const complete = (text: string, id = threadId) =>
          refusal(server.client.request("command/complete", { threadId: id, text }));
        expect(await complete("/compact now")).toEqual({
          code: "invalidParams",
          message: "/compact is not an MCP prompt of this thread",
        });
        expect((await complete("plain words")).code).toBe("invalidParams");
        expect((await complete(`${PROMPT} `, "no-such-thread")).code).toBe("threadNotFound");
        // args-prompt is not completable: the server answers no values
        const none = await server.client.request("command/complete", {
          threadId,
          text: "/mcp__everything__args-prompt Aus",
        });
        expect(none).toMatchObject({ argument: "city", values: [] });
      },
      E2E_TIMEOUT,
    );
  });
}
