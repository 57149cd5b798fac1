/**
 * The first screen's header: which knightcode, which model, where, what the thread
 * loaded (context files, skills, prompt templates, extensions) and the keys to know.
 * The first frame leaves it out; it is drawn (version, cwd, keys) once the settings read
 * right after connecting say it is wanted (`quietStartup: true` hides it), and the rest
 * arrives with the opened thread.
 */
import { homedir } from "node:os";
import { basename, relative } from "node:path";
import type { Command, Thread, ThreadResources } from "@knightcode/app-server-protocol";
import type { Block } from "./ui/block.ts";
import { style } from "./ui/style.ts";
import { fitLine } from "./ui/text.ts";

/** The keys a new user needs, in the order they are likely needed. */
export const KEY_HINTS: readonly [string, string][] = [
  ["Enter", "send"],
  ["Alt+Enter", "queue"],
  ["Esc", "interrupt"],
  ["Ctrl+O", "expand"],
  ["/", "commands"],
  ["@", "files"],
  ["!", "shell"],
];

/** `~` for the home folder. */
export function homeRelative(path: string): string {
  const home = homedir();
  return path === home || path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

/** A path as short as it reads unambiguously: below `cwd` relative to it, else with `~`. */
function shortPath(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside !== "" && !inside.startsWith("..") ? inside : homeRelative(path);
}

/** `label: a, b, c` when there is anything to list. */
function listLine(label: string, items: readonly string[]): string | undefined {
  return items.length === 0 ? undefined : `${label} ${items.join(", ")}`;
}

/** The header block over what is known so far. */
export class Header implements Block {
  thread: Thread | undefined;
  resources: ThreadResources | undefined;
  commands: readonly Command[] = [];
  hidden = false;
  /** True while something else stands in the header's place (an extension's header). */
  replaced: () => boolean = () => false;

  constructor(
    private readonly version: string,
    private readonly cwd: string,
  ) {}

  render(width: number): string[] {
    if (this.hidden || this.replaced()) return [];
    const model =
      this.thread?.model === undefined ? "" : ` · ${this.thread.model.provider}/${this.thread.model.id}`;
    const lines = [
      `${style.bold(`knightcode ${this.version}`)}${style.muted(`${model} · ${homeRelative(this.cwd)}`)}`,
    ];
    const of = (source: Command["source"]) => this.commands.filter((c) => c.source === source);
    const loaded = [
      listLine(
        "context:",
        (this.resources?.contextFiles ?? []).map((p) => shortPath(p, this.cwd)),
      ),
      listLine(
        "skills:",
        of("skill").map((c) => c.name.replace(/^skill:/, "")),
      ),
      listLine(
        "prompts:",
        of("template").map((c) => `/${c.name}`),
      ),
      listLine(
        "extensions:",
        (this.resources?.extensions ?? []).map((p) => basename(p)),
      ),
    ].filter((line) => line !== undefined);
    if (loaded.length > 0) lines.push(style.muted(loaded.join(" · ")));
    lines.push(
      style.muted(`${KEY_HINTS.map(([key, what]) => `${key} ${what}`).join(" · ")} · /help for more`),
    );
    return [...lines.map((line) => fitLine(line, width)), ""];
  }
}
