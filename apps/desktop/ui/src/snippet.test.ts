import { describe, expect, it } from 'vitest';
import { parseSnippet } from './snippet.ts';

describe('parseSnippet', () => {
  it('cuts marks out and unescapes the text, never producing markup', () => {
    expect(parseSnippet('…讲了<mark>矩阵</mark> &amp; &lt;b&gt;<mark>秩</mark>')).toEqual([
      { text: '…讲了', marked: false },
      { text: '矩阵', marked: true },
      { text: ' & <b>', marked: false },
      { text: '秩', marked: true },
    ]);
  });

  it('keeps an escaped mark tag typed in a line as text', () => {
    expect(parseSnippet('&lt;mark&gt;')).toEqual([{ text: '<mark>', marked: false }]);
  });
});
