// A line with its keywords marked (<mark>): the bar, the alert card and the transcript.
import { h } from '../dom.ts';

/** The line cut into pieces, each marked when it is one of the keywords (any case). */
function pieces(
  text: string,
  keywords: readonly string[],
): Array<{ text: string; marked: boolean }> {
  const words = keywords.filter((word) => word.trim() !== '');
  if (words.length === 0) return [{ text, marked: false }];
  const pattern = new RegExp(
    `(${words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`,
    'gi',
  );
  return text
    .split(pattern)
    .filter((part) => part !== '')
    .map((part) => ({
      text: part,
      marked: words.some((word) => word.toLowerCase() === part.toLowerCase()),
    }));
}

/** The line with its keywords marked. */
export function Highlight({ text, keywords }: { text: string; keywords: readonly string[] }) {
  return (
    <>
      {pieces(text, keywords).map((piece) =>
        piece.marked ? <mark>{piece.text}</mark> : piece.text,
      )}
    </>
  );
}

/** The same as nodes, for the views still built by hand. */
export function highlight(text: string, keywords: readonly string[]): Array<string | HTMLElement> {
  return pieces(text, keywords).map((piece) =>
    piece.marked ? h('mark', null, piece.text) : piece.text,
  );
}
