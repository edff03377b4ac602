import { describe, expect, it } from 'vitest';
import { pageStarts } from './page-starts.ts';

describe('pageStarts', () => {
  it('labels the first line of each page, going back included, and skips lines without a page', () => {
    const pages = [null, 3, 3, null, 3, 4, 4, 3, 5];
    expect(pageStarts(pages.map((page) => ({ page })))).toEqual([
      null,
      3,
      null,
      null,
      null,
      4,
      null,
      3,
      5,
    ]);
  });

  it('labels nothing in a class without pages', () => {
    expect(pageStarts([{ page: null }, { page: null }])).toEqual([null, null]);
  });
});
