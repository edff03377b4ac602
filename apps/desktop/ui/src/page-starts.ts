// Where a transcript shows a page label: at each line where the material page changes.

/**
 * For each line, the page it starts: its page when that differs from the last page before it
 * (lines without a page, such as asides before the first match, do not count), else null.
 *
 * @example
 * pageStarts([{ page: null }, { page: 3 }, { page: 3 }, { page: null }, { page: 4 }]);
 * // [null, 3, null, null, 4]
 */
export function pageStarts(lines: ReadonlyArray<{ page: number | null }>): Array<number | null> {
  let last: number | null = null;
  return lines.map((line) => {
    if (line.page === null || line.page === last) return null;
    last = line.page;
    return line.page;
  });
}
