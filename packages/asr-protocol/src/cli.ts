// class-asr: transcribe a WAV file with the streaming service.
//
// stdout: one JSON object per definite utterance, {"text","start_time","end_time"}, as they come.
// stderr: progress and diagnostics (log id, counts of ignored payloads).
// Exit codes: 0 success, 1 connection/protocol failure, 2 bad arguments, 3 bad WAV file,
// 4 service error (the service code and message are printed), 130 interrupted.
import { parseArgs } from 'node:util';
import { DEFAULT_PACKET_MS, pacePackets, splitPcm } from './audio-packets.ts';
import {
  ASR_ENDPOINTS,
  type AsrEndpoint,
  DEFAULT_ASR_BASE_URL,
  isAsrEndpoint,
} from './endpoints.ts';
import { isAsrProtocolError } from './errors.ts';
import { type AsrStream, connectAsrStream } from './stream-client.ts';
import { checkStreamOptions } from './stream-options.ts';
import { readWavFile, type WavAudio } from './wav.ts';

const EXIT = { ok: 0, failure: 1, usage: 2, badWav: 3, service: 4, interrupted: 130 } as const;
const DEFAULT_RESOURCE_ID = 'volc.bigasr.sauc.duration';

const USAGE = `Usage: class-asr transcribe FILE.wav [options]

Streams a WAV file (PCM s16le, 16 kHz, mono or stereo) to the streaming speech-recognition
service and prints one JSON line per final sentence: {"text","start_time","end_time"}.

Options:
  --url BASE           base URL of the service (env STREAM_ASR_URL, default ${DEFAULT_ASR_BASE_URL})
  --endpoint NAME      ${ASR_ENDPOINTS.join(' | ')} (default bigmodel_async)
  --app-key KEY        X-Api-App-Key (env STREAM_ASR_APP_KEY)
  --access-key KEY     X-Api-Access-Key (env STREAM_ASR_ACCESS_KEY)
  --resource-id ID     X-Api-Resource-Id (env STREAM_ASR_RESOURCE_ID, default ${DEFAULT_RESOURCE_ID})
  --realtime           send audio at real time, as a live microphone would
  --packet-ms N        packet length in milliseconds (default ${DEFAULT_PACKET_MS}; 100-200 recommended)
  -h, --help           show this help

Exit codes: 0 done, 1 connection or protocol failure, 2 bad arguments, 3 bad WAV file,
4 service error, 130 interrupted.
`;

class UsageError extends Error {}

interface CliOptions {
  file: string;
  url: string;
  endpoint: AsrEndpoint;
  appKey: string;
  accessKey: string;
  resourceId: string;
  realtime: boolean;
  packetMs: number;
}

const log = (message: string) => process.stderr.write(`class-asr: ${message}\n`);

function parseCli(argv: string[], env: NodeJS.ProcessEnv): CliOptions | 'help' {
  let parsed: ReturnType<typeof parse>;
  function parse() {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        url: { type: 'string' },
        endpoint: { type: 'string' },
        'app-key': { type: 'string' },
        'access-key': { type: 'string' },
        'resource-id': { type: 'string' },
        realtime: { type: 'boolean' },
        'packet-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  }
  try {
    parsed = parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals[0] === 'help') return 'help';
  const [command, file, ...extra] = positionals;
  if (command === undefined)
    throw new UsageError('missing command: try "class-asr transcribe FILE.wav"');
  if (command !== 'transcribe')
    throw new UsageError(`unknown command "${command}" (the command is "transcribe")`);
  if (file === undefined) throw new UsageError('missing FILE.wav');
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"`);
  const endpoint = values.endpoint ?? 'bigmodel_async';
  if (!isAsrEndpoint(endpoint)) {
    throw new UsageError(
      `--endpoint must be one of ${ASR_ENDPOINTS.join(', ')} (got "${endpoint}")`,
    );
  }
  const packetText = values['packet-ms'] ?? String(DEFAULT_PACKET_MS);
  const packetMs = Number(packetText);
  if (!/^\d+$/.test(packetText) || packetMs < 10 || packetMs > 10_000) {
    throw new UsageError(
      `--packet-ms must be a whole number of milliseconds from 10 to 10000 (got "${packetText}")`,
    );
  }
  // Where each stream option came from, to name it in messages: the flag or the variable.
  const sources = new Map<string, string>();
  const settingFrom = (
    option: string,
    flag: string,
    value: string | undefined,
    variable: string,
    fallback?: string,
  ): string => {
    const chosen = value ?? env[variable] ?? fallback;
    if (chosen === undefined || chosen.trim() === '') {
      throw new UsageError(
        `missing ${flag.slice(2).replace('-', ' ')}: pass ${flag} or set ${variable}`,
      );
    }
    sources.set(option, value !== undefined ? flag : env[variable] !== undefined ? variable : flag);
    return chosen;
  };
  const options: CliOptions = {
    file,
    url: settingFrom('url', '--url', values.url, 'STREAM_ASR_URL', DEFAULT_ASR_BASE_URL),
    endpoint,
    appKey: settingFrom('appKey', '--app-key', values['app-key'], 'STREAM_ASR_APP_KEY'),
    accessKey: settingFrom(
      'accessKey',
      '--access-key',
      values['access-key'],
      'STREAM_ASR_ACCESS_KEY',
    ),
    resourceId: settingFrom(
      'resourceId',
      '--resource-id',
      values['resource-id'],
      'STREAM_ASR_RESOURCE_ID',
      DEFAULT_RESOURCE_ID,
    ),
    realtime: values.realtime ?? false,
    packetMs,
  };
  // The client's own checks (header values, URL), before the WAV file is even read.
  try {
    checkStreamOptions({ ...options });
  } catch (error) {
    if (!isAsrProtocolError(error) || error.issues === undefined) throw error;
    throw new UsageError(
      error.issues
        .map((issue) => `${sources.get(issue.path) ?? issue.path}: ${issue.message}`)
        .join('\n'),
    );
  }
  return options;
}

const formatSeconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function transcribe(options: CliOptions, wav: WavAudio, signal: AbortSignal): Promise<void> {
  if (options.packetMs < 100 || options.packetMs > 200) {
    log(`note: ${options.packetMs} ms packets are outside the recommended 100-200 ms`);
  }
  log(
    `${options.file}: ${formatSeconds(wav.durationMs)}, ${wav.channels === 1 ? 'mono' : 'stereo'}` +
      (wav.truncated ? ' (the file is cut short; sending what it holds)' : ''),
  );
  const stream: AsrStream = await connectAsrStream({
    url: options.url,
    endpoint: options.endpoint,
    appKey: options.appKey,
    accessKey: options.accessKey,
    resourceId: options.resourceId,
    signal,
    request: {
      audio: { format: 'pcm', codec: 'raw', rate: 16000, bits: 16, channel: wav.channels },
      request: {
        model_name: 'bigmodel',
        show_utterances: true,
        enable_itn: true,
        enable_punc: true,
      },
    },
  });
  log(
    `connected to ${stream.url} (log id ${stream.logId ?? 'none'}, connect id ${stream.connectId})`,
  );
  stream.on('utterance-complete', ({ utterance }) => {
    const line = {
      text: utterance.text,
      start_time: utterance.start_time,
      end_time: utterance.end_time,
    };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  });
  stream.on('payload-ignore', ({ reason, detail }) =>
    log(`ignored a response (${reason}): ${detail}`),
  );
  const packets = splitPcm(wav.data, { packetMs: options.packetMs, channels: wav.channels });
  const progressEveryMs = 10_000;
  let nextProgress = progressEveryMs;
  for await (const packet of pacePackets(packets, {
    realtime: options.realtime,
    channels: wav.channels,
    signal,
  })) {
    await stream.sendAudio(packet);
    const sentMs = stream.stats.audioMsSent ?? 0;
    if (sentMs >= nextProgress) {
      log(`sent ${formatSeconds(sentMs)} of ${formatSeconds(wav.durationMs)}`);
      nextProgress += progressEveryMs;
    }
  }
  const result = await stream.finish();
  const ignored = result.stats.ignoredPayloads;
  log(
    `done: ${result.utterances.length} utterance(s), ${formatSeconds(result.audioDurationMs ?? 0)} of audio acknowledged, ` +
      `${result.stats.responses} response(s); ignored payloads: ${ignored.empty} empty, ${ignored.notJson} non-JSON, ` +
      `${ignored.invalid} invalid; log id ${result.logId ?? 'none'}`,
  );
}

async function main(argv: string[]): Promise<number> {
  let options: CliOptions | 'help';
  try {
    options = parseCli(argv, process.env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    log(error.message);
    process.stderr.write('Run "class-asr --help" for usage.\n');
    return EXIT.usage;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return EXIT.ok;
  }
  let wav: WavAudio;
  try {
    wav = await readWavFile(options.file);
  } catch (error) {
    log(isAsrProtocolError(error) ? error.message : String(error));
    return EXIT.badWav;
  }
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await transcribe(options, wav, controller.signal);
    return EXIT.ok;
  } catch (error) {
    if (!isAsrProtocolError(error)) throw error;
    const logId = error.logId === undefined ? '' : ` (log id ${error.logId})`;
    if (error.code === 'ASR_SERVICE_ERROR') {
      log(`service error ${error.serviceCode}: ${error.serviceMessage}${logId}`);
      return EXIT.service;
    }
    if (error.code === 'ASR_ABORTED') {
      log('interrupted');
      return EXIT.interrupted;
    }
    if (error.code === 'ASR_INVALID_OPTIONS' || error.code === 'ASR_INVALID_REQUEST') {
      log(error.message);
      process.stderr.write('Run "class-asr --help" for usage.\n');
      return EXIT.usage;
    }
    log(`${error.code}: ${error.message}${logId}`);
    return EXIT.failure;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

process.exitCode = await main(process.argv.slice(2));
