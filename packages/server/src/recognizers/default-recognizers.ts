import { cloudRecognizerDefinition } from './cloud-recognizer.ts';
import { dashscopeRecognizerDefinition } from './dashscope-recognizer.ts';
import { localRecognizerDefinition } from './local-recognizer.ts';
import { mockRecognizerDefinition } from './mock-recognizer.ts';
import type { RecognizerDefinition } from './recognizer.ts';
import { streamRecognizerDefinition } from './stream-recognizer.ts';

/**
 * The recognizers of this build: local (offline, the default), stream (online streaming; the
 * original's seed-asr), dashscope (Alibaba Cloud real-time recognition), cloud
 * (OpenAI-compatible transcription) and mock (a scripted class).
 */
export function defaultRecognizerDefinitions(): RecognizerDefinition[] {
  return [
    localRecognizerDefinition,
    streamRecognizerDefinition,
    dashscopeRecognizerDefinition,
    cloudRecognizerDefinition,
    mockRecognizerDefinition,
  ];
}
