/**
 * `knightcode login [provider]`: saves an API key through the server's
 * `account/login/apiKey` (auth.json, mode 0600) and names the file. The key is typed
 * with hidden input on a terminal or read from piped stdin; the providers are those of
 * `model/list`. Without a provider it lists them.
 */
import { loginProviders } from "./credentials.ts";
import { readHiddenLine } from "./hidden-input.ts";
import { connectTerminalClient } from "./terminal-client.ts";

const USAGE_EXIT = 2;

/** Runs the command; resolves with the exit code. */
export async function runLogin(provider: string | undefined): Promise<number> {
  const connection = await connectTerminalClient({
    cwd: process.cwd(),
    extensions: [],
    noSession: true,
    clientName: "knightcode-login",
  });
  try {
    const { client } = connection;
    const providers = await loginProviders(client);
    if (provider === undefined) {
      const rows = providers.map((p) => `  ${p.provider}${p.available ? "  (has credentials)" : ""}\n`);
      process.stdout.write(
        `Providers that take an API key:\n${rows.join("")}Save one with: knightcode login <provider>\n`,
      );
      return 0;
    }
    if (!providers.some((p) => p.provider === provider)) {
      const known = providers.map((p) => p.provider).join(", ");
      process.stderr.write(`knightcode: unknown provider "${provider}"; login takes one of: ${known}\n`);
      return USAGE_EXIT;
    }
    const typed = process.stdin.isTTY
      ? await readHiddenLine(`API key for ${provider} (input hidden, Enter saves, Ctrl+C cancels): `)
      : await Bun.stdin.text();
    const key = typed?.trim() ?? "";
    if (key === "") {
      process.stderr.write(
        `knightcode: ${typed === undefined ? "cancelled" : "no key given"}; nothing saved\n`,
      );
      return 1;
    }
    await client.request("account/login/apiKey", { provider, apiKey: key });
    const { authFile } = await client.request("account/read", {});
    process.stdout.write(`Saved the key for ${provider} in ${authFile ?? "auth.json"} (mode 0600).\n`);
    return 0;
  } finally {
    await connection.close();
  }
}
