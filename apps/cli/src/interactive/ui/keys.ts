/** Key names for the UI's bindings, decoded by pi-tui (legacy, xterm and Kitty encodings). */
import { matchesKey } from "@mariozechner/pi-tui";

/** The keys the UI binds itself (everything else goes to the focused block). */
export type BoundKey =
  | "enter"
  | "alt+enter"
  | "escape"
  | "ctrl+c"
  | "ctrl+d"
  | "ctrl+o"
  | "ctrl+t"
  | "alt+up"
  | "up"
  | "down";

/** True when the raw input `data` is the key `key`. */
export function isKey(data: string, key: BoundKey): boolean {
  return matchesKey(data, key);
}
