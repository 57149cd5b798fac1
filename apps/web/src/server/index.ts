/** @knightcode/web: the browser client's files and the handler that serves them. */
export { embeddedAssetsModule } from "./embedded-assets.ts";
export { CONTENT_SECURITY_POLICY, webClientResponse } from "./serve-web-client.ts";
export { loadWebAssets } from "./web-assets.ts";
export type { WebAssets } from "./web-assets-types.ts";
