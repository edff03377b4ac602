// How an uploaded material is named in the lists: the name the student gave the file, not the
// backend's stored `deck_20260301_080000.txt`.

/**
 * The stored name without the upload time and `.txt` the backend adds.
 *
 * @example
 * materialStem('第3章_链表_20260301_080000.txt'); // '第3章_链表'
 */
export function materialStem(filename: string): string {
  return filename.replace(/_\d{8}_\d{6}(?:_\d+)?\.txt$/i, '').replace(/\.txt$/i, '') || filename;
}
