// A class listening to a generated lecture (its WAV file played as fast as recognition goes),
// driven over the real HTTP API: what the tests of the online recognition modes share.
import { type ClassClient, classClient } from './class-client.ts';
import { createHarness, type Harness } from './harness.ts';
import type { SpeechRecording } from './speech.ts';

/** A running app with a live client, listening to `lecture`. */
export interface LectureClass {
  harness: Harness;
  client: ClassClient;
  close(): Promise<void>;
}

/**
 * Starts an app whose settings are `env` plus the lecture as its audio input (played fast;
 * `extraEnv` lines come last and win), listening on a free port, with a live client.
 */
export async function startLectureClass(
  lecture: SpeechRecording,
  env: string[],
  extraEnv: string[] = [],
): Promise<LectureClass> {
  const harness = await createHarness({
    env: [...env, `AUDIO_INPUT=file:${lecture.path}`, 'AUDIO_FILE_PACE=fast', ...extraEnv],
  });
  const client = await classClient(await harness.listen());
  return {
    harness,
    client,
    async close() {
      client.close();
      await harness.close();
    },
  };
}
