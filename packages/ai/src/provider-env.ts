/**
 * Where the built-in providers' keys come from in the environment. Apart from the catalog
 * so the provider runtime (which reads keys) does not import the catalog, which imports
 * the demo provider, which imports the runtime.
 */
/** Providers whose models are built in, with the environment variables holding their keys. */
export const BUILT_IN_PROVIDER_ENV: Readonly<Record<string, readonly string[]>> = {
  anthropic: ["ANTHROPIC_API_KEY"],
  openai: ["OPENAI_API_KEY"],
};
