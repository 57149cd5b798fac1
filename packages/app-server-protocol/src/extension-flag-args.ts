/**
 * Extension flags on a command line (`knightcode --plan`, `--ssh user@host`): the CLI
 * keeps every `--name` it does not know aside before any extension has loaded, the
 * server hands them to each thread's extensions, and once those registered their flags
 * both sides resolve the same arguments the same way with {@link resolveFlagArgs}: the
 * server for the values `getFlag` returns, the terminal for which words still belong to
 * the prompt and whether to stop with a usage error.
 */

/** One `--name`, `--name=value` or `--name <word>` kept aside for the extensions. */
export interface ExtensionFlagArg {
  /** Without the leading `--`. */
  name: string;
  /** The value written after `=`. */
  inline?: string;
  /** The word after a bare `--name`: a string flag's value; a boolean flag leaves it alone. */
  next?: string;
}

/** The type an extension declared for a flag. */
export type ExtensionFlagType = "boolean" | "string";

/** The arguments resolved against the registered flags. */
export interface ResolvedFlagArgs {
  /** Passed values by flag name; a later argument for the same flag wins. */
  values: Map<string, boolean | string>;
  /** One line per argument no registered flag accepts, in argument order. */
  problems: string[];
  /** Indices of the arguments whose `next` word became the flag's value. */
  consumedNext: Set<number>;
}

/** How an argument was written, for messages. */
export function flagArgText(arg: ExtensionFlagArg): string {
  return arg.inline === undefined ? `--${arg.name}` : `--${arg.name}=${arg.inline}`;
}

/**
 * Resolves `args` against the registered flag types: a boolean flag is `true` when named
 * and takes no value; a string flag takes `=value` or the next word. A flag nobody
 * registered, a string flag without a value and a boolean flag given `=value` are problems
 * (worded like the CLI's own usage errors).
 */
export function resolveFlagArgs(
  args: readonly ExtensionFlagArg[],
  typeOf: (name: string) => ExtensionFlagType | undefined,
): ResolvedFlagArgs {
  const resolved: ResolvedFlagArgs = { values: new Map(), problems: [], consumedNext: new Set() };
  args.forEach((arg, index) => {
    const type = typeOf(arg.name);
    if (type === undefined) {
      resolved.problems.push(`unknown option '${flagArgText(arg)}'`);
    } else if (type === "boolean") {
      if (arg.inline === undefined) resolved.values.set(arg.name, true);
      else resolved.problems.push(`--${arg.name} takes no value`);
    } else {
      const value = arg.inline ?? arg.next;
      if (value === undefined || value === "") {
        resolved.problems.push(`--${arg.name} needs a value`);
        return;
      }
      resolved.values.set(arg.name, value);
      if (arg.inline === undefined) resolved.consumedNext.add(index);
    }
  });
  return resolved;
}
