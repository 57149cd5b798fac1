/**
 * One line read from the terminal without echo, for a secret typed or pasted at a shell
 * prompt (`knightcode login`). Raw mode, so nothing the user types is shown; Enter ends
 * the line, Backspace deletes, Ctrl+U clears, Ctrl+C or Ctrl+D on an empty line cancels.
 */

/** The line, or undefined when the user cancelled. `prompt` goes to stderr. */
export function readHiddenLine(prompt: string): Promise<string | undefined> {
  const stdin = process.stdin;
  // echo goes off before the prompt shows, so nothing typed after it can be echoed
  stdin.setRawMode(true);
  stdin.resume();
  process.stderr.write(prompt);
  let line = "";
  return new Promise((resolve) => {
    const finish = (value: string | undefined) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      // escape sequences (arrows, bracketed-paste markers) are not part of a key
      const text = chunk.toString("utf8").replace(/\u001b\[[0-9;?]*[~A-Za-z]/g, "");
      for (const ch of text) {
        if (ch === "\r" || ch === "\n") return finish(line);
        if (ch === "\u0003" || (ch === "\u0004" && line === "")) return finish(undefined);
        if (ch === "\u007f" || ch === "\b") line = [...line].slice(0, -1).join("");
        else if (ch === "\u0015") line = "";
        else if (ch >= " ") line += ch;
      }
    };
    stdin.on("data", onData);
  });
}
