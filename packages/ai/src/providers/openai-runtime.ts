/**
 * What the OpenAI providers need at run time, loaded together on the first request to an
 * OpenAI API (see sdk.ts); nothing imports this module statically.
 */
export { default as OpenAI } from "openai";
export { readOpenAIEvents } from "./openai-events.ts";
