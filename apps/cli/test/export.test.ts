import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { textReply } from "@knightcode/testkit";
import { launchBrowser } from "@knightcode/testkit/browser";
import { mockedAgent, runCli } from "./support/cli-run.ts";
import { PtySession } from "./support/pty-session.ts";

/** Every transcript under the agent dir's session folder. */
function transcripts(agentDir: string): string[] {
  const root = join(agentDir, "sessions");
  return readdirSync(root, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".jsonl"))
    .map((name) => join(root, name));
}

describe("/export and knightcode export", () => {
  test("/export writes one HTML file that Chromium shows without the network: the conversation, reasoning folded, the edit's diff, usage", async () => {
    await using env = await mockedAgent();
    writeFileSync(join(env.agent.cwd, "notes.txt"), "alpha\nbeta\n");
    env.mock.enqueue({
      steps: [
        { type: "reasoning", text: "The user wants beta changed." },
        { type: "text", text: "Changing **beta** now." },
        {
          type: "toolCall",
          name: "edit",
          arguments: { path: "notes.txt", edits: [{ oldText: "beta", newText: "gamma" }] },
        },
      ],
    });
    env.mock.enqueue(textReply("All done."));
    await using tty = new PtySession([], { cwd: env.agent.cwd, env: env.env });
    await tty.waitFor("mock-completions/mock-model");
    tty.type("please change beta to gamma");
    await tty.waitFor("All done.");
    tty.type("/export session.html");
    const screen = await tty.waitFor("✓ Exported the session to");
    const file = join(env.agent.cwd, "session.html");
    expect(screen).toContain(file);
    const html = readFileSync(file, "utf8");
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
    expect(html).not.toMatch(/<script|<link|src="http/);

    await using browser = await launchBrowser();
    const requests: string[] = [];
    browser.page.on("request", (request) => {
      if (!request.url().startsWith("file:")) requests.push(request.url());
    });
    await browser.page.goto(`file://${file}`);
    const text = await browser.page.locator("main").textContent();
    expect(text).toContain("please change beta to gamma");
    expect(text).toContain("All done.");
    expect(await browser.page.locator(".assistant strong").first().textContent()).toBe("beta");
    // reasoning is folded: its summary shows, its text does not until opened
    const reasoning = browser.page.locator("details.reasoning").first();
    expect(await reasoning.locator("summary").textContent()).toBe("Reasoning");
    expect(await reasoning.locator(".body").isVisible()).toBe(false);
    await reasoning.locator("summary").click();
    expect(await reasoning.locator(".body").textContent()).toBe("The user wants beta changed.");
    // the edit's diff is shown open, its lines marked
    expect(await browser.page.locator(".diff .diff-del").first().textContent()).toBe("-beta");
    expect(await browser.page.locator(".diff .diff-add").first().textContent()).toBe("+gamma");
    expect(await browser.page.locator(".diff .diff-add").first().isVisible()).toBe(true);
    expect(await browser.page.locator("table.usage").textContent()).toContain("input");
    expect(await browser.page.locator("section.system").count()).toBe(0);
    expect(requests).toEqual([]);
  }, 60_000);

  test("knightcode export <transcript> -o writes the file; --include-system adds the system prompt and tool schemas", async () => {
    await using env = await mockedAgent();
    env.mock.enqueue({ steps: [{ type: "text", text: "Hello from the export test." }] });
    const first = await runCli(["-p", "say hello"], { cwd: env.agent.cwd, env: env.env });
    expect(first.code).toBe(0);
    const [transcript] = transcripts(env.agent.agentDir);
    const out = mkdtempSync(join(tmpdir(), "kc-export-"));
    try {
      const plain = await runCli(["export", transcript!, "-o", join(out, "plain.html")], {
        cwd: env.agent.cwd,
        env: env.env,
      });
      expect(plain.stderr).toBe("");
      expect(plain.stdout).toBe(`Exported the session to ${join(out, "plain.html")}\n`);
      const html = readFileSync(join(out, "plain.html"), "utf8");
      expect(html).toContain("Hello from the export test.");
      expect(html).not.toContain("System prompt");
      const full = await runCli(["export", transcript!, "-o", join(out, "full.html"), "--include-system"], {
        cwd: env.agent.cwd,
        env: env.env,
      });
      expect(full.code).toBe(0);
      const withSystem = readFileSync(join(out, "full.html"), "utf8");
      expect(withSystem).toContain("System prompt");
      expect(withSystem).toContain("<code>edit</code>");
      expect(withSystem).toContain("&quot;oldText&quot;");
      const missing = await runCli(["export", "no-such-session"], { cwd: env.agent.cwd, env: env.env });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe("knightcode: no session 'no-such-session'\n");
      const usage = await runCli(["export"], { cwd: env.agent.cwd, env: env.env });
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain("export needs a session");
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});
