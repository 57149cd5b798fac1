/**
 * `@mariozechner/pi-agent-core` for extensions. pi extensions import its types (which Bun
 * drops); the few values they may touch are KnightCode's.
 */
export { Agent, defaultConvertToLlm } from "@knightcode/agent";
