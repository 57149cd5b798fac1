/** Reads a child's stdout line by line; `next` rejects after a timeout instead of hanging. */
export function lineReader(stream: ReadableStream<Uint8Array>): {
  next(timeoutMs?: number): Promise<string>;
} {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const queue: string[] = [];
  return {
    async next(timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = queue.shift();
        if (line !== undefined) return line;
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new Error("timed out waiting for a line");
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("timed out waiting for a line")), remaining);
        });
        try {
          const { value, done } = await Promise.race([reader.read(), timeout]);
          if (done) throw new Error(`stream ended; partial: ${buffered}`);
          buffered += decoder.decode(value, { stream: true });
          const parts = buffered.split("\n");
          buffered = parts.pop() ?? "";
          queue.push(...parts);
        } finally {
          clearTimeout(timer);
        }
      }
    },
  };
}
