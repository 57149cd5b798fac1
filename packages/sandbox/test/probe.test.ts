import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { requireBubblewrap, SandboxUnavailableError } from "../src/index.ts";
import { CHECKOUT } from "./source-helper.ts";

async function failureOf(promise: Promise<unknown>): Promise<SandboxUnavailableError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SandboxUnavailableError) return error;
    throw error;
  }
  throw new Error("expected a SandboxUnavailableError");
}

describe("requireBubblewrap", () => {
  test("finds a working bwrap on the PATH", async () => {
    expect(await requireBubblewrap(process.env.PATH ?? "")).toEndWith("/bwrap");
  });

  test("no bwrap on the PATH: bwrapMissing, with the install hint", async () => {
    const error = await failureOf(requireBubblewrap("/nonexistent-dir"));
    expect(error.failure).toBe("bwrapMissing");
    expect(error.message).toStartWith("Sandbox unavailable (bwrapMissing): bwrap was not found on the PATH.");
    expect(error.message).toContain("apt-get install bubblewrap");
  });

  test("no user namespaces (inside a sandbox that forbids them): userNamespaces, with the sysctl hint", async () => {
    // The outer bubblewrap disables user namespaces for everything inside it, as a kernel
    // or a container runtime that forbids them would.
    const child = Bun.spawn(
      [
        "bwrap",
        "--unshare-user",
        "--disable-userns",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        // the checkout again, for a clone that lives under /tmp
        "--ro-bind",
        CHECKOUT,
        CHECKOUT,
        process.execPath,
        join(import.meta.dir, "fixtures", "probe-main.ts"),
      ],
      { stdout: "pipe", stderr: "pipe" },
    );
    const out = await new Response(child.stdout).text();
    expect(await child.exited).toBe(0);
    const [failure, message] = out.split("\n");
    expect(failure).toBe("userNamespaces");
    expect(message).toContain("bubblewrap could not create its namespaces");
    expect(message).toContain("Enable unprivileged user namespaces");
  });
});
