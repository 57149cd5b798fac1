/** The line a client shows for `turn/retrying`, so a retry wait is never silence. */
import type { TurnRetryingNotification } from "@knightcode/app-server-protocol";

/** `retrying (2/3) in 4s… Connection error.` */
export function retryLine(params: TurnRetryingNotification): string {
  const seconds = Math.max(0, Math.round(params.delayMs / 100) / 10);
  return `retrying (${params.attempt}/${params.maxRetries}) in ${seconds}s… ${params.message}`;
}
