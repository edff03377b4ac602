// Responses in the shapes the real service sends: result.text,
// result.utterances with words, audio_info.duration.
import type { JsonObject } from '../frame-codec.ts';

/** An utterance the test server will "recognise": its text and where it sits in the audio (ms). */
export interface ScriptedUtterance {
  text: string;
  start_time: number;
  end_time: number;
  /** Sentence additions to attach when definite (speech_rate, volume, lid_lang, emotion, gender). */
  additions?: JsonObject;
}

/** One utterance as it appears in a response. */
export interface ResponseUtterance {
  text: string;
  start_time: number;
  end_time: number;
  definite: boolean;
  additions?: JsonObject;
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/** Words of a text: each CJK character alone, other words split at spaces (punctuation kept). */
function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const part of text.split(/\s+/)) {
    let latin = '';
    for (const character of part) {
      if (CJK.test(character)) {
        if (latin !== '') words.push(latin);
        latin = '';
        words.push(character);
      } else {
        latin += character;
      }
    }
    if (latin !== '') words.push(latin);
  }
  return words;
}

function joinWords(words: readonly string[]): string {
  let text = '';
  for (const word of words) {
    const last = text.at(-1);
    const first = word[0] ?? '';
    text +=
      text === '' || (last !== undefined && (CJK.test(last) || CJK.test(first)))
        ? word
        : ` ${word}`;
  }
  return text;
}

/** Joins sentence texts the way the service does: no space around CJK, one space otherwise. */
function joinTexts(texts: readonly string[]): string {
  return joinWords(texts.filter((text) => text !== ''));
}

function timedWords(utterance: ResponseUtterance): JsonObject[] {
  const words = splitWords(utterance.text);
  const span = Math.max(0, utterance.end_time - utterance.start_time);
  return words.map((text, index) => ({
    text,
    start_time: Math.round(utterance.start_time + (span * index) / words.length),
    end_time: Math.round(utterance.start_time + (span * (index + 1)) / words.length),
    blank_duration: 0,
  }));
}

/** Options of {@link buildAsrResponsePayload}. */
export interface ResponsePayloadOptions {
  /** Sentences to include (each with its definite flag). */
  utterances: readonly ResponseUtterance[];
  /** `audio_info.duration`: ms of audio processed. */
  audioMs: number;
  /** `result.text`; default: the utterances' texts joined. */
  text?: string;
  /** Include `result.utterances` with words (the request's `show_utterances`). Default true. */
  showUtterances?: boolean;
}

/**
 * A response payload in the service's shape:
 * `{ audio_info: { duration }, result: { text, utterances: [{ text, start_time, end_time, definite, words: [...] }] } }`.
 *
 * @example
 * buildAsrResponsePayload({ audioMs: 2000, utterances: [{ text: 'Good morning.', start_time: 200, end_time: 1400, definite: true }] });
 */
export function buildAsrResponsePayload(options: ResponsePayloadOptions): JsonObject {
  const text = options.text ?? joinTexts(options.utterances.map((utterance) => utterance.text));
  const result: JsonObject = { text };
  if (options.showUtterances ?? true) {
    result.utterances = options.utterances.map((utterance) => {
      const item: JsonObject = {
        definite: utterance.definite,
        end_time: utterance.end_time,
        start_time: utterance.start_time,
        text: utterance.text,
        words: timedWords(utterance),
      };
      if (utterance.additions !== undefined) item.additions = utterance.additions;
      return item;
    });
  }
  return { audio_info: { duration: Math.round(options.audioMs) }, result };
}

/**
 * What the service has recognised of a script after `audioMs` of audio: utterances whose end
 * plus `definiteLagMs` (the silence window) has been heard are definite; the one being spoken is
 * a partial holding the words heard so far; later ones are absent. With `final`, everything heard
 * is definite (the last packet ends every sentence).
 */
export function recogniseScript(
  script: readonly ScriptedUtterance[],
  audioMs: number,
  options: { definiteLagMs: number; final: boolean },
): ResponseUtterance[] {
  const out: ResponseUtterance[] = [];
  for (const scripted of [...script].sort((a, b) => a.start_time - b.start_time)) {
    if (scripted.start_time >= audioMs) continue;
    const heardAll = audioMs >= scripted.end_time;
    const definite = options.final || audioMs >= scripted.end_time + options.definiteLagMs;
    if (heardAll) {
      const utterance: ResponseUtterance = {
        text: scripted.text,
        start_time: scripted.start_time,
        end_time: scripted.end_time,
        definite,
      };
      if (definite && scripted.additions !== undefined) utterance.additions = scripted.additions;
      out.push(utterance);
      continue;
    }
    const words = splitWords(scripted.text);
    const fraction = (audioMs - scripted.start_time) / (scripted.end_time - scripted.start_time);
    const heard = Math.max(1, Math.min(words.length, Math.ceil(fraction * words.length)));
    out.push({
      text: joinWords(words.slice(0, heard)),
      start_time: scripted.start_time,
      end_time: Math.round(audioMs),
      definite: options.final,
    });
  }
  return out;
}
