/** Stand-in `fd` executables for file/search tests. */
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A stand-in `fd` that prints one path and then waits until `release` exists in its cwd. */
export function holdingFd(): string {
  const dir = mkdtempSync(join(tmpdir(), "e2e-fd-"));
  const script = join(dir, "fd");
  writeFileSync(script, '#!/bin/sh\necho held.ts\nwhile [ ! -e "$(pwd)/release" ]; do sleep 0.01; done\n');
  chmodSync(script, 0o755);
  return script;
}

/** A stand-in `fd` that fails without printing anything. */
export function failingFd(): string {
  const dir = mkdtempSync(join(tmpdir(), "e2e-fd-"));
  const script = join(dir, "fd");
  writeFileSync(script, "#!/bin/sh\necho 'fd: broken' >&2\nexit 3\n");
  chmodSync(script, 0o755);
  return script;
}
