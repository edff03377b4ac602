// Reading the translator's streamed answer: numbered lines (`1. …`, `2. …`), one per line sent,
// possibly cut in the middle of a line while it streams.

/** One line's translation as far as the answer has it. */
export interface AnswerLine {
  text: string;
  /** The model moved past it (a later line began, or the answer ended). */
  complete: boolean;
}

const NUMBERED = /^\s*(?:#\s*)?(\d{1,3})\s*[.．、:：)）]\s?(.*)$/;

/**
 * The translations in `answer` by line number (1-based; `count` lines were sent). Unnumbered
 * lines continue the line before them; numbers outside 1..count are ignored. With `ended`, every
 * line found is complete; otherwise the last one found is still coming.
 *
 * @example
 * parseNumberedAnswer('1. Hello\n2. Wor', 2, false)
 * // [{ text: 'Hello', complete: true }, { text: 'Wor', complete: false }]
 */
export function parseNumberedAnswer(
  answer: string,
  count: number,
  ended: boolean,
): Array<AnswerLine | undefined> {
  const result: Array<AnswerLine | undefined> = Array.from({ length: count }, () => undefined);
  let current = -1;
  let last = -1;
  for (const raw of answer.split(/\r?\n/)) {
    const match = NUMBERED.exec(raw);
    if (match) {
      const number = Number(match[1]);
      if (number >= 1 && number <= count) {
        current = number - 1;
        result[current] = { text: match[2]!.trim(), complete: true };
        last = current;
        continue;
      }
      // A number beyond the lines sent: neither it nor what follows belongs to a line.
      current = -2;
      continue;
    }
    const line = raw.trim();
    if (line === '' || line.startsWith('```')) continue;
    // One line sent and no number in the answer: the answer is its translation.
    if (current === -1 && count === 1) {
      current = 0;
      result[0] = { text: line, complete: true };
      last = 0;
      continue;
    }
    const target = current >= 0 ? result[current] : undefined;
    if (target) target.text = `${target.text} ${line}`.trim();
  }
  if (!ended && last >= 0 && !/\n\s*$/.test(answer)) result[last]!.complete = false;
  return result;
}
