/** Building the page's DOM from data: text is only ever inserted as text, never as markup. */

type Child = Node | string | null | undefined | false;
type Props = Record<string, string | number | boolean | null | undefined>;

/** An element with attributes (`text` sets its text; false, null and undefined are left out) and children. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  children: Child[] = [],
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'className') node.className = String(value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children)
    if (child !== null && child !== undefined && child !== false && child !== '') node.append(child);
  return node;
}

/** The element with this id, of the expected type; the server renders them all, so a miss is a bug. */
export function byId<T extends HTMLElement = HTMLElement>(id: string, type?: new () => T): T {
  const node = document.getElementById(id);
  if (!node || (type && !(node instanceof type))) throw new Error(`#${id} is missing from the page`);
  return node as T;
}

/** Handles the page's form `id` in place: `handle` runs instead of the browser's submission. */
export function onSubmit(id: string, handle: (form: HTMLFormElement) => Promise<void>): void {
  const form = byId<HTMLFormElement>(id, HTMLFormElement);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void handle(form);
  });
}

/**
 * Replaces a container's children, keeping the keyboard focus on the element with the same
 * `data-focus` key (lists are re-rendered as live data arrives, under a user's Tab key).
 */
export function replaceKeepingFocus(container: Element, children: Node[]): void {
  const active = document.activeElement;
  const key = active instanceof HTMLElement && container.contains(active) ? active.dataset['focus'] : undefined;
  container.replaceChildren(...children);
  if (key === undefined) return;
  const again = container.querySelector<HTMLElement>(`[data-focus="${CSS.escape(key)}"]`);
  again?.focus();
}

export function badge(text: string, kind: string = text): HTMLSpanElement {
  return el('span', { className: `badge ${kind}`, text });
}

/** A list item that says what is missing and what to do about it. */
export function emptyState(text: string, next?: Node | string): HTMLLIElement {
  return el('li', { className: 'empty' }, [el('span', { text }), next ? ' ' : null, next ?? null]);
}
