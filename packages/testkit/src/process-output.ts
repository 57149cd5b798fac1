/** What a finished child process wrote and how it ended. */
export interface ProcessOutput {
  stdout: string;
  stderr: string;
  code: number;
}

/** Reads a piped child's stdout and stderr to their ends while it runs, and waits for its exit. */
export async function collectOutput(child: {
  stdout: ReadableStream<Uint8Array>;
  stderr: ReadableStream<Uint8Array>;
  exited: Promise<number>;
}): Promise<ProcessOutput> {
  // both pipes drain at once: a child that fills one while the other is awaited would block
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { stdout, stderr, code };
}
