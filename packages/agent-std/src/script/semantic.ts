import { type AgentRunOptions, defineAgent } from '../agent.ts';

/** System message of a yes/no judgement (`semantic_if`, `loop … until`, `assert … against`, …). */
export const CONDITION_PROMPT =
  'You check whether a condition holds. You get a condition and a text. Reply with one word: ' +
  'yes if the condition holds for the text, no if it does not.';

/** System message of an intent choice (`match x { intent("…") => … }`). */
export const INTENT_PROMPT =
  'You classify a text. You get numbered intents and a text. Reply with only the number of the ' +
  'intent the text expresses best, or 0 if none of them fits.';

/** A judgement that could not be read from the model's answer. */
export class UnreadableAnswer extends Error {}

const judge = (name: string, prompt: string) => defineAgent({ name, uses: [], role: '', prompt });

/**
 * Asks the model whether `condition` holds for `subject` (one model call, no tools). Reads
 * yes/no (also true/false, or JSON `{"matched": …}`); anything else is an {@link UnreadableAnswer}.
 * `construct` names the asker in events (`semantic_if`, `loop until`, …).
 */
export async function conditionHolds(
  construct: string,
  condition: string,
  subject: string,
  options: AgentRunOptions,
): Promise<boolean> {
  const { text } = await judge(construct, CONDITION_PROMPT).run(
    `Condition: ${condition}\n\nText:\n${subject}`,
    options,
  );
  const answer = text
    .trim()
    .toLowerCase()
    .replace(/^[\s"'*`.:(-]+/, '');
  if (/^(yes|true)\b/.test(answer)) return true;
  if (/^(no|false)\b/.test(answer)) return false;
  try {
    const parsed = JSON.parse(text) as { matched?: unknown };
    if (typeof parsed?.matched === 'boolean') return parsed.matched;
  } catch {
    // not JSON either
  }
  throw new UnreadableAnswer(
    `the model answered neither yes nor no: ${JSON.stringify(text.slice(0, 200))}`,
  );
}

/**
 * Asks the model which of `intents` the `subject` expresses: the index into `intents`, or -1 when
 * it says none fits. An answer without a number in range is an {@link UnreadableAnswer}.
 */
export async function chooseIntent(
  intents: readonly string[],
  subject: string,
  options: AgentRunOptions,
): Promise<number> {
  const list = intents.map((intent, index) => `${index + 1}. ${intent}`).join('\n');
  const { text } = await judge('match intent', INTENT_PROMPT).run(
    `Intents:\n${list}\n\nText:\n${subject}`,
    options,
  );
  const number = /\d+/.exec(text)?.[0];
  const chosen = number === undefined ? Number.NaN : Number(number);
  if (!Number.isInteger(chosen) || chosen < 0 || chosen > intents.length) {
    throw new UnreadableAnswer(
      `the model did not answer with an intent number from 0 to ${intents.length}: ${JSON.stringify(text.slice(0, 200))}`,
    );
  }
  return chosen - 1;
}
