/**
 * The complete lines of a byte stream (a child's stdout, this process's stdin), as JSON
 * lines peers frame them: each line without its "\n", in order. A last piece with no
 * "\n" after it is no line and is not yielded.
 */
export async function* streamLines(stream: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = "";
  for await (const chunk of stream) {
    rest += decoder.decode(chunk, { stream: true });
    const lines = rest.split("\n");
    rest = lines.pop() ?? "";
    yield* lines;
  }
}
