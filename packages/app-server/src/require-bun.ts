/**
 * Imported first by each entry of `@knightcode/app-server`, so a program that loads the
 * runtime under Node stops at the import with one sentence saying what to do, instead
 * of at its first `thread/start` with "Bun is not defined".
 */
if (typeof Bun === "undefined") {
  throw new Error(
    "@knightcode/app-server runs only under Bun (https://bun.sh), not Node: run this program with bun, or spawn `knightcode app-server` and talk to it with AppServerClient from @knightcode/app-server-protocol, which works under Node.",
  );
}
