import { type Language, type MessageText, textIn } from '../language.ts';

/**
 * The failures of `eval`, each with a stable code: the input (the folder, or an option that
 * cannot be used) or the run (the engine or the pipeline failed on a good folder).
 */

const inputMarker = Symbol.for('class-assistant.eval-input-error');
const runMarker = Symbol.for('class-assistant.eval-run-error');

/**
 * The folder cannot be evaluated (missing, empty, unpaired files, unreadable audio, an empty
 * reference), or an option cannot be used (`option` names it).
 */
export class EvalInputError extends Error {
  readonly code = 'EVAL_INPUT_INVALID';
  readonly [inputMarker] = true;
  /** The command-line option at fault, when it is one (`--model`). */
  readonly option: string | undefined;
  /** The message in both languages (`message` is the English one). */
  readonly text: MessageText;
  constructor(message: MessageText, options?: { cause?: unknown; option?: string }) {
    super(
      textIn(message, 'en'),
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'EvalInputError';
    this.option = options?.option;
    this.text = message;
  }
}

/** True for an {@link EvalInputError}, also across copies of this package. */
export function isEvalInputError(error: unknown): error is EvalInputError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[inputMarker] === true
  );
}

/** The engine or the pipeline could not measure a good folder (no model, a class that failed). */
export class EvalRunError extends Error {
  readonly code = 'EVAL_RUN_FAILED';
  readonly [runMarker] = true;
  /** The message in both languages (`message` is the English one). */
  readonly text: MessageText;
  constructor(message: MessageText, options?: { cause?: unknown }) {
    super(textIn(message, 'en'), options);
    this.name = 'EvalRunError';
    this.text = message;
  }
}

/** True for an {@link EvalRunError}, also across copies of this package. */
export function isEvalRunError(error: unknown): error is EvalRunError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[runMarker] === true
  );
}

/**
 * The language of a terminal's user, from the locale variables (LC_ALL, LC_MESSAGES, LANG):
 * Chinese for a zh locale, else English.
 */
export function terminalLanguage(
  environment: Readonly<Record<string, string | undefined>>,
): Language {
  const locale = environment.LC_ALL || environment.LC_MESSAGES || environment.LANG || '';
  return /^zh/i.test(locale) ? 'zh' : 'en';
}
