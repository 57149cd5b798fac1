/**
 * Child process: `serveStdio` on the real stdin/stdout around a ThreadManager that logs
 * with every console method while it works, as a chatty dependency or extension would.
 */
import { serveStdio } from "../../src/serve-stdio.ts";
import { FakeThreadManager } from "./fake-thread-manager.ts";

class NoisyThreadManager extends FakeThreadManager {
  override listModels() {
    console.log("noise: log");
    console.info("noise: info");
    console.debug("noise: debug");
    console.dir({ noise: "dir" });
    console.table([{ noise: "table" }]);
    console.count("noise: count");
    return super.listModels();
  }

  override async closeAll(): Promise<void> {
    console.log("noise: closing");
    return super.closeAll();
  }
}

await serveStdio({ threads: new NoisyThreadManager(), idleCollect: false });
