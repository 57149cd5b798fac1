/**
 * What a thread made by a replacement tells its extensions' `session_start` (pi's
 * `reason` and `previousSessionFile`: the transcript of the thread it replaces).
 */
export interface SessionReplacing {
  reason: "new" | "fork";
  previousSessionFile: string;
}
