// Providers of OpenAI-compatible speech-to-text that students use, for ASR_MODE=cloud: a preset
// fills CLOUD_ASR_BASE_URL and CLOUD_ASR_MODEL; the key comes from the provider's console.

/** One cloud transcription provider. */
export interface CloudPreset {
  id: string;
  name: string;
  /** CLOUD_ASR_BASE_URL: the API base (the app posts to {base}/audio/transcriptions). */
  baseUrl: string;
  /** CLOUD_ASR_MODEL. */
  model: string;
  /** Where a student gets an API key. */
  keyUrl: string;
}

/**
 * The presets, as each provider documents its transcription endpoint: SiliconFlow's SenseVoice
 * (POST https://api.siliconflow.cn/v1/audio/transcriptions, model FunAudioLLM/SenseVoiceSmall),
 * Groq's Whisper (https://api.groq.com/openai/v1, whisper-large-v3-turbo) and OpenAI's
 * (https://api.openai.com/v1, gpt-4o-mini-transcribe; whisper-1 also works).
 */
export const CLOUD_PRESETS: readonly CloudPreset[] = [
  {
    id: 'siliconflow',
    name: 'SiliconFlow · SenseVoice',
    baseUrl: 'https://api.siliconflow.cn/v1',
    model: 'FunAudioLLM/SenseVoiceSmall',
    keyUrl: 'https://cloud.siliconflow.cn/account/ak',
  },
  {
    id: 'groq',
    name: 'Groq · Whisper',
    baseUrl: 'https://api.groq.com/openai/v1',
    model: 'whisper-large-v3-turbo',
    keyUrl: 'https://console.groq.com/keys',
  },
  {
    id: 'openai',
    name: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini-transcribe',
    keyUrl: 'https://platform.openai.com/api-keys',
  },
];
