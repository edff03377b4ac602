// A few lines of DOM building instead of a framework: the UI is a handful of views updated from
// one store, and the shipped bundle stays a few kilobytes.

/** What {@link h} accepts as children. */
export type Child = Node | string | number | false | null | undefined | Child[];

/** Attributes, properties (`value`, `checked`…) and `on<event>` listeners of {@link h}. */
export type Props = Record<string, unknown>;

const PROPERTIES = new Set(['value', 'checked', 'disabled', 'selected', 'hidden', 'open']);

function append(parent: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) {
    for (const item of child) append(parent, item);
    return;
  }
  parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
}

/**
 * Creates an element.
 *
 * @example
 * h('button', { class: 'icon', onclick: () => start(), 'aria-label': '开始' }, '▶');
 */
export function h<Tag extends keyof HTMLElementTagNameMap>(
  tag: Tag,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[Tag] {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') {
      element.addEventListener(key.slice(2), value as EventListener);
    } else if (key === 'class') {
      element.className = String(value);
    } else if (PROPERTIES.has(key)) {
      (element as unknown as Record<string, unknown>)[key] = value;
    } else {
      element.setAttribute(key, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

/** Replaces an element's children. */
export function replaceChildren(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

const SVG = 'http://www.w3.org/2000/svg';

/** 24x24 stroke icons (drawn for this app). */
const ICONS = {
  play: 'M8 5.5v13l10-6.5z',
  pause: 'M8 5h3v14H8zM13 5h3v14h-3z',
  stop: 'M6.5 6.5h11v11h-11z',
  rescue:
    'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zm0 5a4 4 0 1 1 0 8 4 4 0 0 1 0-8zM5.6 5.6l3.6 3.6M14.8 14.8l3.6 3.6M18.4 5.6l-3.6 3.6M9.2 14.8l-3.6 3.6',
  catchup: 'M4 6l7 6-7 6zM12 6l7 6-7 6z',
  menu: 'M4 7h16M4 12h16M4 17h16',
  pin: 'M4 5h16v11H4zM12 16v4M8 20h8',
  close: 'M6 6l12 12M18 6L6 18',
  bell: 'M6 16V11a6 6 0 1 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0',
  upload: 'M12 16V4M7 9l5-5 5 5M5 20h14',
  send: 'M4 12l16-8-6 16-2.5-6.5z',
} as const;

/** An icon name. */
export type IconName = keyof typeof ICONS;

/** An inline SVG icon that takes the text colour. */
export function icon(name: IconName): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('class', `icon icon-${name}`);
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', ICONS[name]);
  svg.appendChild(path);
  return svg;
}
