/**
 * `@mariozechner/pi-tui` for extensions running without a terminal: components exist so
 * an extension can build them, but nothing renders them (`render()` returns no lines and
 * input is ignored). The text helpers work on plain strings.
 */

/** What every stand-in component offers. */
class InertComponent {
  children: unknown[] = [];
  render(_width: number): string[] {
    return [];
  }
  handleInput(_data: string): void {}
  invalidate(): void {}
  addChild(child: unknown): void {
    this.children.push(child);
  }
  removeChild(child: unknown): void {
    this.children = this.children.filter((c) => c !== child);
  }
  clear(): void {
    this.children = [];
  }
  setText(_text: string): void {}
  focus(): void {}
  blur(): void {}
}

export class Container extends InertComponent {}
export class Box extends InertComponent {}
export class Text extends InertComponent {}
export class TruncatedText extends InertComponent {}
export class Spacer extends InertComponent {}
export class Markdown extends InertComponent {}
export class Loader extends InertComponent {}
export class CancellableLoader extends InertComponent {}
export class Image extends InertComponent {}
export class Input extends InertComponent {
  getValue(): string {
    return "";
  }
  setValue(_value: string): void {}
}
export class Editor extends Input {
  getText(): string {
    return "";
  }
  onSubmit: ((text: string) => void) | undefined;
  onChange: ((text: string) => void) | undefined;
}
export class SelectList extends InertComponent {
  onSelect: ((item: unknown) => void) | undefined;
  onCancel: (() => void) | undefined;
  setFilter(_filter: string): void {}
  getSelectedItem(): unknown {
    return undefined;
  }
}
export class SettingsList extends SelectList {}
export class TUI extends InertComponent {
  requestRender(): void {}
  start(): void {}
  stop(): void {}
}

/** pi-tui's cursor marker; invisible in plain text. */
export const CURSOR_MARKER = "\u001b_pi:c\u0007";

const MODIFIERS = /^(ctrl|shift|alt|meta|super)+$/;

/**
 * Key names by property: `Key.escape` is `"escape"`; a modifier (`ctrl`, `ctrlAlt`, …)
 * is a function, `Key.ctrlAlt("p")` is `"ctrl+alt+p"`.
 */
export const Key: Record<string, unknown> = new Proxy(
  {},
  {
    get: (_target, name) => {
      const key = String(name);
      if (!MODIFIERS.test(key.toLowerCase())) return key;
      const parts = key
        .replace(/([A-Z])/g, " $1")
        .toLowerCase()
        .split(" ");
      return (base: string) => [...parts, base].join("+");
    },
  },
);

/** No terminal sends keys here: nothing ever matches. */
export function matchesKey(_data: string, _key: string): boolean {
  return false;
}

export function parseKey(_data: string): string | undefined {
  return undefined;
}

export function isKeyRelease(_data: string): boolean {
  return false;
}

export function isKeyRepeat(_data: string): boolean {
  return false;
}

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*(\u0007|\u001b\\)|\u001b_[^\u0007]*\u0007/g;

/** Width in columns of plain text (escape sequences take none). */
export function visibleWidth(text: string): number {
  let width = 0;
  for (const char of text.replace(ANSI, "")) width += Bun.stringWidth(char);
  return width;
}

/** The text cut to `width` columns, with `ellipsis` when cut. */
export function truncateToWidth(text: string, width: number, ellipsis = "..."): string {
  if (visibleWidth(text) <= width) return text;
  const room = Math.max(0, width - visibleWidth(ellipsis));
  let out = "";
  let used = 0;
  for (const char of text.replace(ANSI, "")) {
    const w = Bun.stringWidth(char);
    if (used + w > room) break;
    out += char;
    used += w;
  }
  return out + ellipsis;
}

/** The text wrapped at `width` columns, by words where possible. */
export function wrapTextWithAnsi(text: string, width: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split("\n")) {
    let line = "";
    for (const word of paragraph.split(" ")) {
      const candidate = line === "" ? word : `${line} ${word}`;
      if (visibleWidth(candidate) <= width || line === "") line = candidate;
      else {
        lines.push(line);
        line = word;
      }
    }
    lines.push(line);
  }
  return lines;
}

/** Items whose text contains every character of `query` in order, best first. */
export function fuzzyFilter<T>(items: T[], query: string, getText: (item: T) => string): T[] {
  const q = query.toLowerCase();
  if (q === "") return items;
  return items.filter((item) => {
    const text = getText(item).toLowerCase();
    let at = 0;
    for (const char of q) {
      at = text.indexOf(char, at);
      if (at === -1) return false;
      at++;
    }
    return true;
  });
}
