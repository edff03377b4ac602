/**
 * The main settings keys (design.md section 4, backend.md 2.2 plus what the product needs): their
 * defaults, which are secrets, how each is validated, and when a change takes effect.
 */

/** When a saved change takes effect. */
export type SettingApplies = 'now' | 'next-class' | 'restart';

/** The outcome of checking one value. */
export type SettingCheck = { ok: true } | { ok: false; message: string };

/** One main key of the settings file. */
export interface SettingDefinition {
  key: string;
  group: 'recognition' | 'streaming-asr' | 'cloud-asr' | 'llm' | 'audio' | 'mock' | 'server';
  description: string;
  /** The value used when the key is absent or empty (secrets: always empty). */
  defaultValue: string;
  /** Secrets are masked on read and never logged. */
  secret: boolean;
  applies: SettingApplies;
  /** An example shown in /docs and .env.example. */
  example: string;
  /** Validates a non-empty value. Empty means "use the default". */
  check(value: string): SettingCheck;
}

const ok: SettingCheck = { ok: true };

function integer(min: number, max: number) {
  return (value: string): SettingCheck =>
    /^\d+$/.test(value) && Number(value) >= min && Number(value) <= max
      ? ok
      : { ok: false, message: `must be a whole number from ${min} to ${max}, got "${value}"` };
}

function decimal(min: number, max: number) {
  return (value: string): SettingCheck =>
    /^\d+(\.\d+)?$/.test(value) && Number(value) >= min && Number(value) <= max
      ? ok
      : { ok: false, message: `must be a number from ${min} to ${max}, got "${value}"` };
}

function url(protocols: string[]) {
  return (value: string): SettingCheck => {
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      return { ok: false, message: `must be a URL (${protocols.join(' or ')}), got "${value}"` };
    }
    return protocols.includes(parsed.protocol)
      ? ok
      : {
          ok: false,
          message: `must start with ${protocols.map((p) => `${p}//`).join(' or ')}, got "${value}"`,
        };
  };
}

function oneOf(values: string[]) {
  return (value: string): SettingCheck =>
    values.includes(value)
      ? ok
      : { ok: false, message: `must be one of ${values.join(', ')}, got "${value}"` };
}

function text(maxLength: number) {
  return (value: string): SettingCheck =>
    /[\r\n]/.test(value)
      ? { ok: false, message: 'must be a single line' }
      : value.length > maxLength
        ? { ok: false, message: `must be at most ${maxLength} characters` }
        : ok;
}

const boolean = oneOf(['true', 'false']);

/** Checks one origin of CORS_ORIGINS: scheme://host[:port], no path. */
export function checkOrigin(value: string): SettingCheck {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return { ok: false, message: `"${value}" is not an origin like http://localhost:5173` };
  }
  if (value === '*' || parsed.origin === 'null' || parsed.origin !== value.replace(/\/$/, '')) {
    return {
      ok: false,
      message: `"${value}" is not an origin like http://localhost:5173 (scheme://host[:port], no path, no *)`,
    };
  }
  return ok;
}

/** The ASR modes the product defines; the recognizer registry says which are available. */
export const ASR_MODES = ['local', 'stream', 'cloud', 'mock'] as const;

/** Every main key, in the order the settings form and .env.example show them. */
export const SETTING_DEFINITIONS: readonly SettingDefinition[] = [
  {
    key: 'ASR_MODE',
    group: 'recognition',
    description:
      'Recognition mode: local (offline, microphone + local model), stream (online streaming ASR), cloud (OpenAI-compatible transcription), mock (scripted lecture for demos and tests).',
    defaultValue: 'local',
    secret: false,
    applies: 'next-class',
    example: 'mock',
    check: oneOf([...ASR_MODES]),
  },
  {
    key: 'STREAM_ASR_URL',
    group: 'streaming-asr',
    description: 'Base address of the streaming ASR service (wss://host).',
    defaultValue: 'wss://openspeech.bytedance.com',
    secret: false,
    applies: 'next-class',
    example: 'wss://openspeech.bytedance.com',
    check: url(['wss:', 'ws:']),
  },
  {
    key: 'STREAM_ASR_ENDPOINT',
    group: 'streaming-asr',
    description:
      'Which streaming endpoint: bigmodel_async (optimised bidirectional, answers on change), bigmodel (bidirectional), bigmodel_nostream.',
    defaultValue: 'bigmodel_async',
    secret: false,
    applies: 'next-class',
    example: 'bigmodel_async',
    check: oneOf(['bigmodel_async', 'bigmodel', 'bigmodel_nostream']),
  },
  {
    key: 'STREAM_ASR_APP_KEY',
    group: 'streaming-asr',
    description: 'Streaming provider application id (X-Api-App-Key).',
    defaultValue: '',
    secret: true,
    applies: 'next-class',
    example: '1234567890',
    check: text(200),
  },
  {
    key: 'STREAM_ASR_ACCESS_KEY',
    group: 'streaming-asr',
    description: 'Streaming provider access token (X-Api-Access-Key).',
    defaultValue: '',
    secret: true,
    applies: 'next-class',
    example: 'your-access-token',
    check: text(500),
  },
  {
    key: 'STREAM_ASR_RESOURCE_ID',
    group: 'streaming-asr',
    description:
      'Streaming provider resource id: volc.bigasr.sauc.duration (1st generation, hourly), volc.bigasr.sauc.concurrent, volc.seedasr.sauc.duration, …',
    defaultValue: 'volc.bigasr.sauc.duration',
    secret: false,
    applies: 'next-class',
    example: 'volc.bigasr.sauc.duration',
    check: text(200),
  },
  {
    key: 'STREAM_ASR_HOTWORDS',
    group: 'streaming-asr',
    description:
      'Send hot words to the streaming service: your custom keywords (names) and terms of the active class material, within the protocol limit of 100 tokens.',
    defaultValue: 'true',
    secret: false,
    applies: 'next-class',
    example: 'true',
    check: boolean,
  },
  {
    key: 'CLOUD_ASR_BASE_URL',
    group: 'cloud-asr',
    description:
      'OpenAI-compatible API for the cloud mode (POST {base}/audio/transcriptions). Empty: use LLM_BASE_URL.',
    defaultValue: '',
    secret: false,
    applies: 'next-class',
    example: 'https://api.openai.com/v1',
    check: url(['https:', 'http:']),
  },
  {
    key: 'CLOUD_ASR_API_KEY',
    group: 'cloud-asr',
    description: 'Key for the cloud transcription API. Empty: use LLM_API_KEY.',
    defaultValue: '',
    secret: true,
    applies: 'next-class',
    example: 'sk-…',
    check: text(500),
  },
  {
    key: 'CLOUD_ASR_MODEL',
    group: 'cloud-asr',
    description: 'Transcription model of the cloud mode.',
    defaultValue: 'whisper-1',
    secret: false,
    applies: 'next-class',
    example: 'whisper-1',
    check: text(200),
  },
  {
    key: 'CLOUD_ASR_LANGUAGE',
    group: 'cloud-asr',
    description:
      'Language of the speech for the cloud mode, as an ISO-639-1 code (zh, en…); empty lets the service detect it.',
    defaultValue: '',
    secret: false,
    applies: 'next-class',
    example: 'zh',
    check: (value) =>
      /^[a-z]{2,3}$/.test(value)
        ? ok
        : { ok: false, message: `must be an ISO-639-1 code such as zh or en, got "${value}"` },
  },
  {
    key: 'LLM_BASE_URL',
    group: 'llm',
    description:
      'Base address of the OpenAI-compatible LLM API (rescue, catch-up, notes, folding).',
    defaultValue: 'https://api.deepseek.com/v1',
    secret: false,
    applies: 'now',
    example: 'https://api.deepseek.com/v1',
    check: url(['https:', 'http:']),
  },
  {
    key: 'LLM_API_KEY',
    group: 'llm',
    description: 'LLM API key. Empty: AI features answer LLM_NOT_CONFIGURED.',
    defaultValue: '',
    secret: true,
    applies: 'now',
    example: 'sk-…',
    check: text(500),
  },
  {
    key: 'LLM_MODEL',
    group: 'llm',
    description: 'Chat model name.',
    defaultValue: 'deepseek-chat',
    secret: false,
    applies: 'now',
    example: 'deepseek-chat',
    check: text(200),
  },
  {
    key: 'LLM_TIMEOUT',
    group: 'llm',
    description:
      'Seconds one LLM request may take (one retry follows a timeout or a connection failure).',
    defaultValue: '60',
    secret: false,
    applies: 'now',
    example: '60',
    check: decimal(0.1, 600),
  },
  {
    key: 'AUDIO_SAMPLE_RATE',
    group: 'audio',
    description: 'Capture sample rate in Hz.',
    defaultValue: '16000',
    secret: false,
    applies: 'next-class',
    example: '16000',
    check: integer(8000, 48000),
  },
  {
    key: 'AUDIO_CHANNELS',
    group: 'audio',
    description: 'Capture channel count.',
    defaultValue: '1',
    secret: false,
    applies: 'next-class',
    example: '1',
    check: integer(1, 2),
  },
  {
    key: 'AUDIO_CHUNK_SIZE',
    group: 'audio',
    description: 'Bytes per audio chunk (3200 bytes = 100 ms of 16 kHz 16-bit mono).',
    defaultValue: '3200',
    secret: false,
    applies: 'next-class',
    example: '3200',
    check: integer(320, 65536),
  },
  {
    key: 'AUDIO_INPUT',
    group: 'audio',
    description:
      'Audio source of the local, stream and cloud modes: mic (the default microphone), mic:NAME (the input whose name contains NAME), or file:PATH (a PCM WAV file, e.g. a recorded lecture; relative to the app folder).',
    defaultValue: 'mic',
    secret: false,
    applies: 'next-class',
    example: 'file:/home/me/lectures/week3.wav',
    check: (value) => {
      const single = text(1000)(value);
      if (!single.ok) return single;
      return /^file:\s*$/i.test(value)
        ? { ok: false, message: 'file: needs a path, e.g. file:/home/me/lecture.wav' }
        : ok;
    },
  },
  {
    key: 'AUDIO_FILE_PACE',
    group: 'audio',
    description:
      'How AUDIO_INPUT=file:PATH is played: realtime (like a live class, one second per second) or fast (as fast as recognition goes: transcribe a recording).',
    defaultValue: 'realtime',
    secret: false,
    applies: 'next-class',
    example: 'fast',
    check: oneOf(['realtime', 'fast']),
  },
  {
    key: 'VAD_ENERGY_THRESHOLD',
    group: 'audio',
    description:
      'Speech detection (local and cloud modes): starting energy threshold; audio louder than this is speech (SpeechRecognition energy_threshold).',
    defaultValue: '220',
    secret: false,
    applies: 'next-class',
    example: '220',
    check: decimal(1, 32767),
  },
  {
    key: 'VAD_DYNAMIC_ENERGY',
    group: 'audio',
    description:
      'Let the threshold follow the room noise between phrases (SpeechRecognition dynamic_energy_threshold).',
    defaultValue: 'true',
    secret: false,
    applies: 'next-class',
    example: 'true',
    check: boolean,
  },
  {
    key: 'VAD_PAUSE_THRESHOLD',
    group: 'audio',
    description:
      'Seconds of quiet that end a phrase (pause_threshold; at least 0.45, the silence kept around phrases).',
    defaultValue: '0.9',
    secret: false,
    applies: 'next-class',
    example: '0.9',
    check: decimal(0.45, 10),
  },
  {
    key: 'VAD_PHRASE_TIME_LIMIT',
    group: 'audio',
    description: 'Longest phrase in seconds before it is cut and recognised (0: no limit).',
    defaultValue: '15',
    secret: false,
    applies: 'next-class',
    example: '15',
    check: decimal(0, 120),
  },
  {
    key: 'VAD_CALIBRATION_SECONDS',
    group: 'audio',
    description:
      'Seconds of room noise measured at the start of a class to set the threshold (adjust_for_ambient_noise; 0: off). That audio is not transcribed.',
    defaultValue: '1',
    secret: false,
    applies: 'next-class',
    example: '1',
    check: decimal(0, 10),
  },
  {
    key: 'LOCAL_ASR_ENGINE',
    group: 'recognition',
    description:
      'Offline engine of ASR_MODE=local: vosk (Chinese, English and more; needs VOSK_MODEL_PATH) or pocketsphinx (US English only, from the system packages libpocketsphinx3 and pocketsphinx-en-us).',
    defaultValue: 'vosk',
    secret: false,
    applies: 'next-class',
    example: 'vosk',
    check: oneOf(['vosk', 'pocketsphinx']),
  },
  {
    key: 'VOSK_MODEL_PATH',
    group: 'recognition',
    description:
      'Folder of an unpacked Vosk model for ASR_MODE=local (https://alphacephei.com/vosk/models, e.g. vosk-model-small-cn-0.22 or vosk-model-small-en-us-0.15).',
    defaultValue: '',
    secret: false,
    applies: 'next-class',
    example: '/home/me/models/vosk-model-small-cn-0.22',
    check: text(1000),
  },
  {
    key: 'POCKETSPHINX_MODEL_PATH',
    group: 'recognition',
    description:
      'Folder of the PocketSphinx model for LOCAL_ASR_ENGINE=pocketsphinx, holding en-us/, en-us.lm.bin and cmudict-en-us.dict. Empty: /usr/share/pocketsphinx/model/en-us (Debian).',
    defaultValue: '',
    secret: false,
    applies: 'next-class',
    example: '/usr/share/pocketsphinx/model/en-us',
    check: text(1000),
  },
  {
    key: 'MOCK_SCRIPT',
    group: 'mock',
    description:
      'Text file the mock mode reads, one spoken line per line (# comments). Empty: the bundled bilingual lecture.',
    defaultValue: '',
    secret: false,
    applies: 'next-class',
    example: '/home/me/lecture.txt',
    check: text(1000),
  },
  {
    key: 'MOCK_INTERVAL_MS',
    group: 'mock',
    description: 'Milliseconds between two scripted lines of the mock mode.',
    defaultValue: '3000',
    secret: false,
    applies: 'next-class',
    example: '3000',
    check: integer(1, 600000),
  },
  {
    key: 'MOCK_LOOP',
    group: 'mock',
    description: 'Whether the mock script starts again after its last line.',
    defaultValue: 'true',
    secret: false,
    applies: 'next-class',
    example: 'true',
    check: boolean,
  },
  {
    key: 'KEYWORD_HOMOPHONES',
    group: 'recognition',
    description:
      'Homophone tolerance of keyword alerts: off, pinyin (张珊 matches 张三), fuzzy-pinyin (also zh/z, n/l, an/ang… confusions). Used from the next class or reload_keywords.',
    defaultValue: 'pinyin',
    secret: false,
    applies: 'next-class',
    example: 'pinyin',
    check: oneOf(['off', 'pinyin', 'fuzzy-pinyin']),
  },
  {
    key: 'CORS_ORIGINS',
    group: 'server',
    description:
      'Extra web origins allowed to call the API, comma-separated (the app itself, tauri://localhost and http://tauri.localhost always are).',
    defaultValue: '',
    secret: false,
    applies: 'now',
    example: 'http://localhost:5173',
    check: (value) => {
      for (const origin of splitList(value)) {
        const result = checkOrigin(origin);
        if (!result.ok) return result;
      }
      return ok;
    },
  },
  {
    key: 'UPLOAD_MAX_MB',
    group: 'server',
    description: 'Largest accepted material upload in MiB.',
    defaultValue: '50',
    secret: false,
    applies: 'now',
    example: '50',
    check: integer(1, 500),
  },
  {
    key: 'HISTORY_FOLD_ENTRIES',
    group: 'server',
    description:
      'Transcript entries that trigger folding older lines into the history summary (0 turns folding off).',
    defaultValue: '50',
    secret: false,
    applies: 'next-class',
    example: '50',
    check: (value) => (value === '0' ? ok : integer(10, 10000)(value)),
  },
  {
    key: 'LOG_LEVEL',
    group: 'server',
    description:
      'Console and startup-log verbosity: fatal, error, warn, info, debug, trace, silent.',
    defaultValue: 'info',
    secret: false,
    applies: 'restart',
    example: 'info',
    check: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  },
];

const byKey = new Map(SETTING_DEFINITIONS.map((definition) => [definition.key, definition]));

/** The definition of a main key, or undefined for any other key. */
export function settingDefinition(key: string): SettingDefinition | undefined {
  return byKey.get(key);
}

/** Splits a comma-separated list, dropping blanks. */
export function splitList(value: string): string[] {
  return value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
