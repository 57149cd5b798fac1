/** Decoding file bytes as text, refusing what would not survive a round trip. */
import { looksBinary } from "./image.ts";

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * The file's text, with a leading byte-order mark kept in the string, or undefined when the
 * bytes are binary or not valid UTF-8. Editing such a file through a lossy decode would
 * replace every byte it could not read, all over the file.
 */
export function decodeTextFile(bytes: Uint8Array): string | undefined {
  if (looksBinary(bytes)) return undefined;
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}
