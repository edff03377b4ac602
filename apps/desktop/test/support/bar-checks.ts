/// <reference lib="dom" />
// Measurements of the bar in the page: what overflows or leaves the window, and the contrast of
// every control (WCAG 2 relative luminance from the rendered colours, and axe-core's check of the
// text). The functions passed to page.evaluate run in the browser.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/**
 * What does not fit: a visible element of the bar area whose box leaves the window, or a row
 * whose content is wider than the row (cut off or scrolled). Empty when everything fits.
 */
export function overflowProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()}.${Array.from(element.classList).join('.')}${
        element.textContent ? ` "${element.textContent.trim().slice(0, 30)}"` : ''
      }`;
    const visible = (element: Element) => {
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      return (
        box.width > 0 && box.height > 0 && style.visibility !== 'hidden' && style.display !== 'none'
      );
    };
    // Visually hidden text (kept for screen readers) is clipped to nothing on purpose.
    const clipped = (element: Element) =>
      getComputedStyle(element).clipPath === 'inset(50%)' ||
      Boolean(
        element.parentElement && getComputedStyle(element.parentElement).clipPath === 'inset(50%)',
      );
    const area = document.querySelector('.bar-area');
    if (!area) return ['no .bar-area'];
    /** The part of an element not clipped away by an ancestor that hides its overflow. */
    const shownBox = (element: Element) => {
      const box = element.getBoundingClientRect();
      let { left, top, right, bottom } = box;
      for (let node = element.parentElement; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
        const clip = node.getBoundingClientRect();
        left = Math.max(left, clip.left);
        top = Math.max(top, clip.top);
        right = Math.min(right, clip.right);
        bottom = Math.min(bottom, clip.bottom);
      }
      return { left, top, right, bottom };
    };
    for (const element of Array.from(area.querySelectorAll('*'))) {
      if (!visible(element) || clipped(element)) continue;
      const box = shownBox(element);
      if (box.right <= box.left || box.bottom <= box.top) continue;
      if (
        box.left < -0.5 ||
        box.top < -0.5 ||
        box.right > window.innerWidth + 0.5 ||
        box.bottom > window.innerHeight + 0.5
      ) {
        problems.push(
          `${name(element)} leaves the ${window.innerWidth}x${window.innerHeight} window: ${Math.round(box.left)},${Math.round(box.top)} → ${Math.round(box.right)},${Math.round(box.bottom)}`,
        );
      }
    }
    // Rows: the bar's children, the top row's and the card's, and every control's label.
    const rows = [
      ...Array.from(area.querySelectorAll('.bar > *, .bar-top > *, .bar-actions > *')),
      ...Array.from(area.querySelectorAll('.alert-card > *, .alert-head > *, .alert-body > *')),
      ...Array.from(area.querySelectorAll('button')),
    ];
    for (const row of rows) {
      if (!visible(row) || clipped(row)) continue;
      // Text cut with an ellipsis on purpose (the course name, a keyword chip) is shortened,
      // not overflowing: its full text is in a tooltip.
      const style = getComputedStyle(row);
      if (style.textOverflow === 'ellipsis' && row.getAttribute('title')) continue;
      if (row.scrollWidth > row.clientWidth + 1) {
        problems.push(
          `${name(row)} is wider than it is shown: ${row.scrollWidth} > ${row.clientWidth}`,
        );
      }
    }
    return problems;
  });
}

/**
 * Every visible control of the bar area (buttons, links) and every text in it whose colour
 * against the background it is drawn on has a contrast below `minimum` (WCAG 2: the relative
 * luminance of the rendered colours, backgrounds with alpha composited over what is behind).
 */
export function contrastProblems(page: Page, minimum = 4.5): Promise<string[]> {
  return page.evaluate((minimum) => {
    type Rgba = [number, number, number, number];
    const parse = (value: string): Rgba => {
      const numbers = value.match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0, 0];
      return [numbers[0] ?? 0, numbers[1] ?? 0, numbers[2] ?? 0, numbers[3] ?? 1];
    };
    const over = (top: Rgba, bottom: Rgba): Rgba => {
      const alpha = top[3] + bottom[3] * (1 - top[3]);
      if (alpha === 0) return [0, 0, 0, 0];
      const mix = (index: number) =>
        (top[index]! * top[3] + bottom[index]! * bottom[3] * (1 - top[3])) / alpha;
      return [mix(0), mix(1), mix(2), alpha];
    };
    /** The colour behind an element: its own background over its ancestors'. */
    const background = (element: Element | null): Rgba => {
      const layers: Rgba[] = [];
      for (let node = element; node; node = node.parentElement) {
        const style = getComputedStyle(node);
        const opacity = Number(style.opacity);
        const color = parse(style.backgroundColor);
        if (color[3] > 0) layers.push([color[0], color[1], color[2], color[3] * opacity]);
        if (color[3] === 1 && opacity === 1) break;
      }
      return layers.reduceRight<Rgba>((below, layer) => over(layer, below), [255, 255, 255, 1]);
    };
    const luminance = ([red, green, blue]: Rgba) => {
      const channel = (value: number) => {
        const scaled = value / 255;
        return scaled <= 0.03928 ? scaled / 12.92 : ((scaled + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue);
    };
    const ratio = (a: Rgba, b: Rgba) => {
      const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
      return (light + 0.05) / (dark + 0.05);
    };
    const area = document.querySelector('.bar-area');
    if (!area) return ['no .bar-area'];
    const problems: string[] = [];
    const targets = new Set<Element>();
    for (const element of Array.from(
      area.querySelectorAll('button, a, [role="status"] *, p, span, strong, time, mark'),
    )) {
      targets.add(element);
    }
    for (const element of targets) {
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      if (box.width === 0 || box.height === 0 || style.visibility === 'hidden') continue;
      if ((element as HTMLButtonElement).disabled) continue;
      if (style.clipPath === 'inset(50%)') continue;
      // Text nodes or icons of its own: what a student reads or recognises.
      const ownText = Array.from(element.childNodes).some(
        (node) => node.nodeType === Node.TEXT_NODE && node.textContent?.trim(),
      );
      const icon = element.querySelector(':scope > svg');
      if (!ownText && !icon) continue;
      const back = background(element);
      const fore = over(parse(style.color), back);
      const value = ratio(fore, back);
      if (value < minimum) {
        problems.push(
          `${element.tagName.toLowerCase()}.${Array.from(element.classList).join('.')} "${element.textContent?.trim().slice(0, 20)}": ${value.toFixed(2)}:1 (${style.color} on rgb(${back.slice(0, 3).map(Math.round).join(', ')}))`,
        );
      }
    }
    return problems;
  }, minimum);
}

const require = createRequire(import.meta.url);

/** axe-core's color-contrast rule on `selector`: the violations, as "target: summary". */
export async function axeContrast(page: Page, selector: string): Promise<string[]> {
  const source = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(source);
  return page.evaluate(async (selector) => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            context: unknown,
            options: unknown,
          ): Promise<{
            violations: Array<{ nodes: Array<{ target: string[]; failureSummary?: string }> }>;
          }>;
        };
      }
    ).axe;
    const result = await axe.run(
      { include: [selector] },
      { runOnly: { type: 'rule', values: ['color-contrast'] }, resultTypes: ['violations'] },
    );
    return result.violations.flatMap((violation) =>
      violation.nodes.map((node) => `${node.target.join(' ')}: ${node.failureSummary ?? ''}`),
    );
  }, selector);
}

/** Stops the bar's flash at its brightest frame (so contrast is checked there too). */
export function holdFlashAtPeak(page: Page): Promise<number> {
  return page.evaluate(() => {
    let held = 0;
    for (const animation of document.getAnimations()) {
      const target = (animation.effect as KeyframeEffect | null)?.target;
      if (!(target instanceof Element) || !target.classList.contains('bar')) continue;
      const timing = animation.effect?.getComputedTiming();
      animation.pause();
      // The end of the first iteration: the `to` keyframe (the flash alternates).
      animation.currentTime = Number(timing?.duration ?? 0) - 1;
      held++;
    }
    return held;
  });
}

/** Ends the bar's flash (held or running): the bar at rest. */
export function endFlash(page: Page): Promise<void> {
  return page.evaluate(() => {
    for (const animation of document.getAnimations()) {
      const target = (animation.effect as KeyframeEffect | null)?.target;
      if (target instanceof Element && target.classList.contains('bar')) animation.finish();
    }
  });
}
