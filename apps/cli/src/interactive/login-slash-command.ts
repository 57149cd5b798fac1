/**
 * `/login [provider]`: pick a provider (from `model/list`) unless named, type its API key
 * into a hidden prompt, and save it through `account/login/apiKey`, which writes
 * `auth.json` with mode 0600; the note names the file. Esc or an empty key saves nothing.
 */
import { loginProviders } from "../credentials.ts";
import type { InteractiveApp } from "./interactive-app.ts";
import { style } from "./ui/style.ts";

/** Runs `/login` with the rest of the line as the provider. */
export async function login(app: InteractiveApp, args: string): Promise<void> {
  const providers = await loginProviders(app.client);
  let provider = args.trim();
  if (provider === "") {
    const answer = await app.ask(
      "Save an API key for which provider? (type to search, Esc to cancel)",
      providers.map((p) => ({
        value: p.provider,
        label: p.provider,
        description: p.available ? "has credentials" : "no credentials",
      })),
      { searchable: true },
    );
    if ("cancelled" in answer) return;
    provider = answer.value;
  } else if (!providers.some((p) => p.provider === provider)) {
    const known = providers.map((p) => p.provider).join(", ");
    app.view.note(style.error(`✗ Unknown provider "${provider}"; /login takes one of: ${known}`));
    return;
  }
  const secret = await app.secret(`API key for ${style.bold(provider)}:`);
  if ("cancelled" in secret || secret.text.trim() === "") {
    app.view.note(style.muted("No key saved."));
    return;
  }
  await app.client.request("account/login/apiKey", { provider, apiKey: secret.text.trim() });
  const { authFile } = await app.client.request("account/read", {});
  app.view.note(
    style.success(`✓ Saved the key for ${provider} in ${authFile ?? "auth.json"} (readable by you only).`) +
      style.muted(" /model picks one of its models."),
  );
}
