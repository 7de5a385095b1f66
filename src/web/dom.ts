// The page's one way to build elements: h(tag, attributes, ...children). Children are nodes or
// strings, and a string always becomes a text node (textContent), never markup: server text cannot
// inject HTML. Attributes are set with setAttribute (no event-handler attributes: the CSP forbids
// inline script anyway); listeners are passed as `on` and added with addEventListener.

export type Child = Node | string | null | undefined | false;

export interface Attrs {
  [name: string]: string | number | boolean | null | undefined | Record<string, EventListener>;
  on?: Record<string, EventListener>;
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (name === 'on' && typeof value === 'object' && value !== null) {
      for (const [type, listener] of Object.entries(value)) el.addEventListener(type, listener);
    } else if (name.startsWith('on')) {
      throw new Error(`h(): event-handler attribute ${name} is not allowed: pass listeners as "on"`);
    } else if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
}

/** Replaces every child of `parent` with `children`. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, children);
}
