// A line of text with its keywords marked (`<mark>`), case-insensitively.

/** The text, with each keyword inside it marked. */
export function Highlight({ text, keywords }: { text: string; keywords: readonly string[] }) {
  const words = keywords.filter((word) => word.trim() !== '');
  if (words.length === 0) return <>{text}</>;
  const pattern = new RegExp(
    `(${words.map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})`,
    'gi',
  );
  return (
    <>
      {/* The words caught by the pattern are at the odd places of the split. */}
      {text
        .split(pattern)
        .map((part, index) => (index % 2 === 1 ? <mark key={index}>{part}</mark> : part))}
    </>
  );
}
