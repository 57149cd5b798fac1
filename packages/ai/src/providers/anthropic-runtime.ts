/**
 * What the Anthropic provider needs at run time, loaded together on the first request to the
 * Messages API (see sdk.ts); nothing imports this module statically.
 */
export { default as Anthropic } from "@anthropic-ai/sdk";
export { readAnthropicEvents } from "./anthropic-events.ts";
