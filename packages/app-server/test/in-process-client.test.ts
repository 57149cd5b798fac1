import { expect, test } from "bun:test";
import { createInProcessClient } from "../src/in-process-client.ts";
import type { AccountPort } from "../src/ports.ts";
import { FakeThreadManager } from "./support/fake-thread-manager.ts";

test("close stops input, cancels pending logins, then awaits threads.closeAll() before resolving", async () => {
  const order: string[] = [];
  const unload = Promise.withResolvers<void>();
  class RecordingManager extends FakeThreadManager {
    override async closeAll(): Promise<void> {
      order.push("closeAll called");
      await unload.promise;
      order.push("closeAll done");
    }
  }
  const accounts: AccountPort = {
    read: async () => ({ accounts: [] }),
    loginApiKey: async () => {},
    logout: async () => {},
    cancelPendingLogins: () => {
      order.push("logins cancelled");
    },
  };
  const { client, close } = await createInProcessClient({
    threads: new RecordingManager(),
    accounts,
    idleCollect: false,
  });
  const closing = close().then(() => order.push("closed"));
  // input stopped at once: a request sent after close began is refused
  const late = await client.request("model/list", {}).then(
    () => "answered",
    (error: { code?: string }) => error.code,
  );
  order.push(`late request: ${late}`);
  unload.resolve();
  await closing;
  expect(order).toEqual([
    "logins cancelled",
    "closeAll called",
    "late request: shuttingDown",
    "closeAll done",
    "closed",
  ]);
});
