/** The built web client: each file by the URL path it is served at (`/` is the page). */
export interface WebAssets {
  files: Record<string, { type: string; body: string }>;
}
