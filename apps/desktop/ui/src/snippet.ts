// Search hits from the backend carry their snippet as escaped HTML with each match in
// <mark>…</mark>. The UI never puts that string into innerHTML: it is cut into plain texts and
// marked texts, which become text nodes and <mark> elements.

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"' };

/** A piece of a snippet: plain text, or a match. */
export interface SnippetPiece {
  text: string;
  marked: boolean;
}

/**
 * Cuts a snippet into pieces.
 *
 * @example
 * parseSnippet('讲了<mark>矩阵</mark> &amp; 秩') // [{text:'讲了',marked:false},{text:'矩阵',marked:true},{text:' & 秩',marked:false}]
 */
export function parseSnippet(snippet: string): SnippetPiece[] {
  const pieces: SnippetPiece[] = [];
  let marked = false;
  for (const part of snippet.split(/(<mark>|<\/mark>)/)) {
    if (part === '<mark>' || part === '</mark>') {
      marked = part === '<mark>';
      continue;
    }
    if (part === '') continue;
    pieces.push({
      text: part.replace(/&(amp|lt|gt|quot);/g, (_, name: string) => ENTITIES[name]!),
      marked,
    });
  }
  return pieces;
}
