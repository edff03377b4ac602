import type { ClassContext } from './class-ai.ts';

/**
 * What an AI answer was written from, so that a student can check it: the transcript lines sent
 * to the model (with their ids and times), the span they cover, the material pages that went into
 * the prompt and, for rescue, the lines the model named as its basis.
 */
export interface AnswerSources {
  /** Time of the first line sent (`HH:MM:SS`, '' without lines). */
  from: string;
  /** Time of the last line sent. */
  to: string;
  /** The transcript lines sent, oldest first. */
  lines: Array<{ id: number; timestamp: string; text: string }>;
  /** The class material under data/cite ('' when the class has none). */
  material: string;
  /** Numbers of the material pages sent, ascending ([] without material or page markers). */
  pages: number[];
  /** Ids of the lines the model named as its basis (rescue), a subset of `lines`. */
  cited: number[];
}

/**
 * The sources of an answer over `context`.
 *
 * @example
 * answerSources(context, { material: 'deck_20260301_080000.txt', pages: [3, 4], cited: [12] });
 */
export function answerSources(
  context: Pick<ClassContext, 'lines'>,
  basis: { material: string; pages: readonly number[]; cited?: readonly number[] },
): AnswerSources {
  const lines = context.lines.map((line) => ({
    id: line.id,
    timestamp: line.timestamp,
    text: line.text,
  }));
  return {
    from: lines[0]?.timestamp ?? '',
    to: lines.at(-1)?.timestamp ?? '',
    lines,
    material: basis.material,
    pages: [...basis.pages],
    cited: [...(basis.cited ?? [])],
  };
}
