/** A small element builder: the whole client builds its DOM with `h`, never with HTML strings. */

type Child = Node | string | false | null | undefined;
type Attributes = Record<string, string | boolean | number | EventListener | undefined>;

/**
 * `h("button", { class: "primary", onclick: send }, "Send")`. Keys starting with `on` are
 * listeners; `true` sets an empty attribute, `false`/`undefined` leaves it out.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === "function") element.addEventListener(key.slice(2), value);
    else element.setAttribute(key, value === true ? "" : String(value));
  }
  append(element, children);
  return element;
}

/** Appends children, skipping the empty ones. */
export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === false || child === null || child === undefined) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}
