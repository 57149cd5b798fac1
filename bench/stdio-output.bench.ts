/**
 * The app server's output path alone: JSON lines from `StdioServerTransport` through a
 * real pipe to a client that reads as fast as it can. A child process sends 50 MiB of
 * streaming-turn notifications; the parent counts the bytes. Prints MB/s (median of five
 * runs). `--transport <path>` measures another build of the transport module (for a
 * before/after comparison, e.g. one extracted with `git show`).
 */
import { join } from "node:path";

const at = process.argv.indexOf("--transport");
const transport =
  at === -1
    ? join(import.meta.dir, "..", "packages", "app-server", "src", "stdio-transport.ts")
    : process.argv[at + 1]!;
const MIB = 50;
const rates: number[] = [];
for (let run = 0; run < 5; run++) {
  const child = Bun.spawn(
    [process.execPath, join(import.meta.dir, "support", "stdio-writer.ts"), transport, String(MIB)],
    {
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  let bytes = 0;
  for await (const chunk of child.stdout) bytes += chunk.byteLength;
  const report = JSON.parse((await new Response(child.stderr).text()).trim().split("\n").at(-1)!) as {
    seconds: number;
  };
  await child.exited;
  rates.push(bytes / 1e6 / report.seconds);
}
rates.sort((a, b) => a - b);
console.log(
  `stdio output path: ${rates.map((r) => r.toFixed(0)).join(", ")} MB/s; median ${rates[2]!.toFixed(0)} MB/s of JSON lines to a reading client`,
);
