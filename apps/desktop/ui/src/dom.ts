// DOM building for the views not yet moved to components (being replaced by Preact components).
import { ICONS, type IconName } from './components/icon.tsx';

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

/** An inline SVG icon that takes the text colour (see components/icon.tsx). */
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
