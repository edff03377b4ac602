// The full server response payload as zod schemas. Objects are loose: the
// service may add fields, and they are kept, not refused.
import { z } from 'zod';

/** One word of an utterance (times in ms). */
export const asrWordSchema = z.looseObject({
  text: z.string(),
  start_time: z.number(),
  end_time: z.number(),
  blank_duration: z.number().optional(),
});

/** Per-sentence additions, present when the matching request options are on. */
export const asrAdditionsSchema = z.looseObject({
  /** Tokens per second (`show_speech_rate`). */
  speech_rate: z.union([z.number(), z.string()]).optional(),
  /** Decibels (`show_volume`). */
  volume: z.union([z.number(), z.string()]).optional(),
  /** Language label (`enable_lid`), e.g. speech_en; empty when it could not be judged. */
  lid_lang: z.string().optional(),
  /** angry, happy, neutral, sad or surprise (`enable_emotion_detection`). */
  emotion: z.string().optional(),
  /** male or female (`enable_gender_detection`). */
  gender: z.string().optional(),
});

/** One sentence (times in ms); `definite: true` once the sentence is final. */
export const asrUtteranceSchema = z.looseObject({
  text: z.string(),
  start_time: z.number(),
  end_time: z.number(),
  definite: z.boolean().optional(),
  words: z.array(asrWordSchema).optional(),
  additions: asrAdditionsSchema.optional(),
});

/** `result`: the text of the whole audio, and sentences when `show_utterances` is on. */
export const asrResultSchema = z.looseObject({
  text: z.string().optional(),
  utterances: z.array(asrUtteranceSchema).optional(),
});

/** The full server response payload. `result` is an object, or a list of them. */
export const asrResponseSchema = z.looseObject({
  result: z.union([asrResultSchema, z.array(asrResultSchema)]).optional(),
  audio_info: z.looseObject({ duration: z.number() }).optional(),
});

/** A word of an utterance. */
export type AsrWord = z.infer<typeof asrWordSchema>;
/** Sentence additions (speech rate, volume, language, emotion, gender). */
export type AsrAdditions = z.infer<typeof asrAdditionsSchema>;
/** A sentence of the result. */
export type AsrUtterance = z.infer<typeof asrUtteranceSchema>;
/** The `result` object. */
export type AsrResult = z.infer<typeof asrResultSchema>;
/** The full server response payload. */
export type AsrResponse = z.infer<typeof asrResponseSchema>;

/** `result` as a list, whether the service sent one object or a list. */
export function responseResults(response: AsrResponse): AsrResult[] {
  if (response.result === undefined) return [];
  return Array.isArray(response.result) ? response.result : [response.result];
}
