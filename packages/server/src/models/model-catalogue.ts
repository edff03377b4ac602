/**
 * The models the app can fetch by itself: each file's name, size and pinned checksum, and the
 * hosts it can come from, tried in order. A file is kept only when its size and SHA-256 (and MD5,
 * where one is pinned) match the values here, wherever it came from: the student's own mirror
 * (MODELS_BASE_URL, always tried first), the original host, Hugging Face at a pinned revision,
 * hf-mirror.com (the same paths, reachable from mainland China) or ModelScope. A file without a
 * published SHA-256 says why (`sha256: null`) and is downloaded only with the student's explicit
 * OK (the API's `allow_unchecked`, the UI's confirmation, the CLI's `--allow-unchecked`).
 *
 * No value below was computed here (no model host can be reached from where this catalogue was
 * written); each was read where it is published, and where it comes from is said per value.
 *
 * **Vosk** (one ZIP archive each, from the official host alphacephei.com):
 *
 * - **Size and MD5**: the official list https://alphacephei.com/vosk/models/model-list.json
 *   publishes both for every archive (no SHA-256). The values below were read from verbatim
 *   copies of that list's entries kept in public repositories; trustworthy as far as those copies
 *   are faithful (each size also agrees with independently published ones).
 * - **SHA-256**: not published by Alpha Cephei. The values below are each pinned by many
 *   unrelated public projects (Yocto recipes, Arch user packages, app installers in Java, Kotlin,
 *   Python and shell) that downloaded the official archive and agree byte for byte. Independent
 *   agreement, not an official statement: a model whose SHA-256 could not be found this way is
 *   not in the catalogue.
 *
 * | id                | archive                                | size (official) | MD5 (official)                   | SHA-256 (independently published, 8+ projects each)              |
 * | ----------------- | -------------------------------------- | --------------- | -------------------------------- | ---------------------------------------------------------------- |
 * | vosk-small-cn     | vosk-model-small-cn-0.22.zip           | 43898754        | d1a8e82933dcc7632667c036b0bb3dbb | 3af8b0e7e0f835ae9d414ce5df580237a3cfb08d586c9fbbb0f7ff29ad5b14ba |
 * | vosk-small-en-us  | vosk-model-small-en-us-0.15.zip        | 41205931        | (not found)                      | 30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498 |
 * | vosk-en-us-lgraph | vosk-model-en-us-0.22-lgraph.zip       | 130557655       | 2df36985f8ed8eb7b78476cadcdab48f | d9838b4aaa82a75c4a17f5aca300eaca129aaab2a7cbf951bafbb500eb9c4334 |
 *
 * The big models (vosk-model-cn-0.22, 1.3 GB; vosk-model-en-us-0.22, 1.8 GB) are left out: no
 * copy of their official size and MD5 and no independently published SHA-256 could be found.
 * Students who want them can still fetch them checked, with their own checksum:
 * `class-assistant-backend models pull --url <url> --sha256 <hex> --name <folder>`.
 *
 * **sherpa-onnx models** (separate files, placed in the model folder as they are). Their
 * original host is Hugging Face (the sherpa-onnx maintainer's repositories, pinned at one
 * revision; the GitHub release archives are .tar.bz2, which this app does not unpack); the same
 * paths on hf-mirror.com; ModelScope's copy (`/models/<repo>/resolve/master/<file>`, checked by
 * the same pinned digests). Sizes and SHA-256 values are the Git LFS object ids of the pinned
 * revision (for LFS files the id is the content's SHA-256) as pinned, identically, by several
 * unrelated public projects that download these files (Android, Flutter, Rust, Python and Windows
 * installers); a file whose value two such projects did not agree on would have `sha256: null`.
 *
 * | id                        | file                             | size      | SHA-256                                                          |
 * | ------------------------- | -------------------------------- | --------- | ---------------------------------------------------------------- |
 * | sense-voice-small         | model.int8.onnx                  | 239233841 | c71f0ce00bec95b07744e116345e33d8cbbe08cef896382cf907bf4b51a2cd51 |
 * |   (rev 2365baea…)         | tokens.txt                       | 315894    | f449eb28dc567533d7fa59be34e2abca8784f771850c78a47fb731a31429a1dc |
 * | streaming-zipformer-zh-en | encoder-epoch-99-avg-1.int8.onnx | 181895032 | 8fa764187a261844f859d7143ebaa563af5d10adfece4c18a8f414c88cba2a9b |
 * |   (rev 98590b7e…)         | decoder-epoch-99-avg-1.onnx      | 13876452  | 2e3b5ec371f8899ee6acd829fd753ba45772df57a91bdf37cde3136354e7db7d |
 * |                           | joiner-epoch-99-avg-1.int8.onnx  | 3228404   | 1ed689c5ed19dbaa725d9d191bb4822b5f4855a39e1ffd28cbc1f340d25b2ee0 |
 * |                           | tokens.txt                       | 56317     | a8e0e4ec53810e433789b54a5c0134a7eaa2ffca595a6334d54c00da858841d3 |
 * |                           | bpe.vocab (hot words)            | 12564     | d0b642f3a2eacd5fadefdeff9e0e1358cab729647cbb7fe58cf738e1f7407029 |
 * | punct-ct-transformer-zh-en | model.onnx                      | 294372519 | e93593a6dbd69a07f8734ef269dbe861a379755f8d1c8354719432116f2c44bd |
 * |   (rev 432aeba6…)         |                                  |           |                                                                  |
 *
 * The punctuation model (role `punctuation`, never offered as a recognizer) is sherpa-onnx's
 * conversion of FunASR's CT-Transformer (punc_ct-transformer_zh-cn-common-vocab272727). Only
 * `model.onnx` is fetched: sherpa-onnx reads the vocabulary and the marks from its metadata (the
 * repository's `tokens.json` and `config.yaml` are for the conversion scripts). Its revision and
 * the size and SHA-256 above are pinned identically by several unrelated public projects (Rust,
 * TypeScript, C# and Python apps, and two published file audits); its int8 sibling (a quarter of
 * the size) is published only inside a .tar.bz2, with no per-file checksum found, so it is not
 * offered.
 *
 * **Why SenseVoice is the recommended Chinese model**: its published character error rate is
 * several times lower than Vosk small-cn's, it adds punctuation and handles English inside
 * Chinese, and it runs well faster than real time on a desktop or laptop CPU:
 *
 * - SenseVoice-Small CER (FunAudioLLM, arXiv:2407.04051, ASR table): AISHELL-1 test 2.96 %, the
 *   figure quoted alike by several independent comparisons (its other rows could not be read here).
 * - Vosk small-cn CER (https://alphacephei.com/vosk/models): 17.15 % THCHS, 23.54 % SpeechIO-02,
 *   38.29 % SpeechIO-06.
 * - A public measurement of this very int8 file (same SHA-256) in sherpa-onnx: real-time factor
 *   0.04 with 4 threads on an i5-12600KF (https://huggingface.co/nocmt/SenseVoiceSmall-INT8-ONNX).
 *
 * The streaming bilingual Zipformer gives partial text while the teacher speaks and takes hot
 * words (modified beam search); no error rate on a named test set is published for it.
 */
/** Offline engines a model can be for (`sherpa`: a sherpa-onnx model folder). */
export type ModelEngine = 'vosk' | 'pocketsphinx' | 'sherpa';

/**
 * What a model is for: `recognizer` (speech to text) or `punctuation` (a sherpa-onnx
 * CT-Transformer that punctuates a streaming model's lines; never offered as a recognizer).
 */
export type ModelRole = 'recognizer' | 'punctuation';

/** Class languages of the local mode (LOCAL_ASR_LANGUAGE). */
export type ModelLanguage = 'zh' | 'en';

/** One file of a model, as it is published. */
export interface ModelFile {
  /** Its name on every host, and in the model folder (an archive is unpacked instead). */
  name: string;
  /** Exact size in bytes. */
  sizeBytes: number;
  /** Lower-case hex SHA-256; null when no published value could be found (see `nullWhy`). */
  sha256: string | null;
  /** Where the size and SHA-256 come from. */
  sha256Source?: string;
  /** Why `sha256` is null: such a file is downloaded only with the student's explicit OK. */
  nullWhy?: string;
  /** Lower-case hex MD5, when the publisher lists one (checked too). */
  md5?: string;
}

/** What kind of host a source is. */
export type ModelSourceKind = 'mirror' | 'official' | 'huggingface' | 'hf-mirror' | 'modelscope';

/** One host a model's files can be downloaded from. */
export interface ModelSource {
  /** Stable id: `mirror` (MODELS_BASE_URL), `official`, `huggingface`, `hf-mirror`, `modelscope`. */
  id: string;
  label: { zh: string; en: string };
  kind: ModelSourceKind;
  /** The address of one of the model's files on this host. */
  urlFor(file: string): string;
}

/** An error rate published for a model. */
export interface PublishedAccuracy {
  metric: 'CER' | 'WER';
  /** Percent. */
  value: number;
  testSet: string;
  /** Where it is published (URL or paper). */
  source: string;
}

/** One model the app can download. */
export interface ModelCatalogueEntry {
  /** Stable id used by the CLI, the API and the UI, e.g. `vosk-small-cn`. */
  id: string;
  /** The folder it is installed as under `<data>/models/`, e.g. `vosk-model-small-cn-0.22`. */
  name: string;
  engine: ModelEngine;
  /** What it is for; absent: `recognizer`. */
  role?: ModelRole;
  /** The class language (LOCAL_ASR_LANGUAGE) it serves. */
  language: ModelLanguage;
  /** Every language it recognises, e.g. `['zh', 'en', 'ja', 'ko', 'yue']`. */
  languages: string[];
  /** Total download size in bytes (the sum of `files`). */
  sizeBytes: number;
  /** Size of the installed folder in bytes; null when no one publishes it (an archive's unpacked size). */
  diskBytes: number | null;
  /** One line for the student: what the model is good for (English). */
  description: string;
  /** The same line in Chinese; every model of the shipped catalogue has one. */
  descriptionZh?: string;
  licence: string;
  /** Partial text while the teacher speaks. */
  streaming: boolean;
  /** The model the app suggests first for its language. */
  recommended?: boolean;
  publishedAccuracy: PublishedAccuracy[];
  /** `zip`: one archive, unpacked; `files`: the files are the model folder. */
  packaging: 'zip' | 'files';
  files: ModelFile[];
  /** Hosts tried in order (MODELS_BASE_URL, when set, comes before them all). */
  sources: ModelSource[];
}

/** The official Vosk model host. */
export const DEFAULT_MODELS_BASE_URL = 'https://alphacephei.com/vosk/models';

const trimmed = (base: string) => base.trim().replace(/\/+$/, '');

/** A host that serves the files by name under one folder (`<base>/<file>`). */
export function folderSource(
  id: string,
  kind: ModelSourceKind,
  label: { zh: string; en: string },
  base: string,
): ModelSource {
  return { id, kind, label, urlFor: (file) => `${trimmed(base)}/${encodeURIComponent(file)}` };
}

/**
 * The sources of a model published on Hugging Face (`repo` at `revision`): Hugging Face, the
 * same paths on hf-mirror.com, then ModelScope's copy (`modelScopeRepo`, branch master).
 */
export function huggingFaceSources(
  repo: string,
  revision: string,
  modelScopeRepo: string,
): ModelSource[] {
  return [
    folderSource(
      'huggingface',
      'huggingface',
      { zh: 'Hugging Face（原始发布）', en: 'Hugging Face (original)' },
      `https://huggingface.co/${repo}/resolve/${revision}`,
    ),
    folderSource(
      'hf-mirror',
      'hf-mirror',
      { zh: 'hf-mirror（国内镜像）', en: 'hf-mirror (China mirror)' },
      `https://hf-mirror.com/${repo}/resolve/${revision}`,
    ),
    folderSource(
      'modelscope',
      'modelscope',
      { zh: 'ModelScope 魔搭', en: 'ModelScope' },
      `https://modelscope.cn/models/${modelScopeRepo}/resolve/master`,
    ),
  ];
}

const VOSK_OFFICIAL = folderSource(
  'official',
  'official',
  { zh: 'Vosk 官方源', en: 'the official Vosk host' },
  DEFAULT_MODELS_BASE_URL,
);

const VOSK_SHA256 =
  'pinned identically by 8+ unrelated public projects that download the official archive; size and MD5 from the official model-list.json';

const VOSK_SMALL_CN_ACCURACY: PublishedAccuracy[] = [
  { metric: 'CER', value: 17.15, testSet: 'THCHS', source: 'https://alphacephei.com/vosk/models' },
  {
    metric: 'CER',
    value: 23.54,
    testSet: 'SpeechIO-02',
    source: 'https://alphacephei.com/vosk/models',
  },
  {
    metric: 'CER',
    value: 38.29,
    testSet: 'SpeechIO-06',
    source: 'https://alphacephei.com/vosk/models',
  },
];

const SENSE_VOICE_REPO = 'csukuangfj/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17';
const SENSE_VOICE_REVISION = '2365baeacb507f821a0c8120fcee3d484dba7a07';
const SENSE_VOICE_PINNED = `Git LFS id at Hugging Face ${SENSE_VOICE_REPO}@${SENSE_VOICE_REVISION}, pinned identically by several unrelated public projects`;
// Only the AISHELL-1 figure is given: it is quoted alike by several independent public comparisons of
// the paper's table; its other figures (AISHELL-2, WenetSpeech) could not be read from here.
const SENSE_VOICE_PAPER = 'FunAudioLLM (arXiv:2407.04051), ASR results table';

const ZIPFORMER_REPO = 'csukuangfj/sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20';
const ZIPFORMER_REVISION = '98590b7ed6443e77b714204da2757d75e1a642f4';
const ZIPFORMER_PINNED = `Git LFS id at Hugging Face ${ZIPFORMER_REPO}@${ZIPFORMER_REVISION}, pinned identically by several unrelated public projects`;

const PUNCT_REPO = 'csukuangfj/sherpa-onnx-punct-ct-transformer-zh-en-vocab272727-2024-04-12';
const PUNCT_REVISION = '432aeba669265e7aeb06b9359753419683b38597';
const PUNCT_PINNED = `Git LFS id at Hugging Face ${PUNCT_REPO}@${PUNCT_REVISION}, pinned identically by several unrelated public projects`;

/** The catalogue the app ships (see the tables above for the provenance of every value). */
export const OFFICIAL_MODEL_CATALOGUE: readonly ModelCatalogueEntry[] = [
  {
    id: 'sense-voice-small',
    name: 'sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17',
    engine: 'sherpa',
    language: 'zh',
    languages: ['zh', 'en', 'ja', 'ko', 'yue'],
    sizeBytes: 239_233_841 + 315_894,
    diskBytes: 239_233_841 + 315_894,
    description:
      'SenseVoice-Small (sherpa-onnx): Chinese with English, punctuation, a line per sentence; recommended',
    descriptionZh: 'SenseVoice-Small（sherpa-onnx）：中文夹英文，带标点，一句一行；推荐',
    licence: 'FunASR Model Open Source License (SenseVoice-Small); sherpa-onnx export Apache-2.0',
    streaming: false,
    recommended: true,
    publishedAccuracy: [
      { metric: 'CER', value: 2.96, testSet: 'AISHELL-1 test', source: SENSE_VOICE_PAPER },
    ],
    packaging: 'files',
    files: [
      {
        name: 'model.int8.onnx',
        sizeBytes: 239_233_841,
        sha256: 'c71f0ce00bec95b07744e116345e33d8cbbe08cef896382cf907bf4b51a2cd51',
        sha256Source: SENSE_VOICE_PINNED,
      },
      {
        name: 'tokens.txt',
        sizeBytes: 315_894,
        sha256: 'f449eb28dc567533d7fa59be34e2abca8784f771850c78a47fb731a31429a1dc',
        sha256Source: SENSE_VOICE_PINNED,
      },
    ],
    sources: huggingFaceSources(
      SENSE_VOICE_REPO,
      SENSE_VOICE_REVISION,
      'k2-fsa/sherpa-onnx-sense-voice-zh-en-ja-ko-yue-2024-07-17',
    ),
  },
  {
    id: 'streaming-zipformer-zh-en',
    name: 'sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20',
    engine: 'sherpa',
    language: 'zh',
    languages: ['zh', 'en'],
    sizeBytes: 181_895_032 + 13_876_452 + 3_228_404 + 56_317 + 12_564,
    diskBytes: 181_895_032 + 13_876_452 + 3_228_404 + 56_317 + 12_564,
    description:
      'Streaming Zipformer zh-en (sherpa-onnx): text appears while the teacher speaks, favours the class terms',
    descriptionZh: '流式 Zipformer 中英（sherpa-onnx）：老师说话时就出字，优先识别课程术语',
    licence: 'Apache-2.0',
    streaming: true,
    publishedAccuracy: [],
    packaging: 'files',
    files: [
      {
        name: 'encoder-epoch-99-avg-1.int8.onnx',
        sizeBytes: 181_895_032,
        sha256: '8fa764187a261844f859d7143ebaa563af5d10adfece4c18a8f414c88cba2a9b',
        sha256Source: ZIPFORMER_PINNED,
      },
      {
        name: 'decoder-epoch-99-avg-1.onnx',
        sizeBytes: 13_876_452,
        sha256: '2e3b5ec371f8899ee6acd829fd753ba45772df57a91bdf37cde3136354e7db7d',
        sha256Source: ZIPFORMER_PINNED,
      },
      {
        name: 'joiner-epoch-99-avg-1.int8.onnx',
        sizeBytes: 3_228_404,
        sha256: '1ed689c5ed19dbaa725d9d191bb4822b5f4855a39e1ffd28cbc1f340d25b2ee0',
        sha256Source: ZIPFORMER_PINNED,
      },
      {
        name: 'tokens.txt',
        sizeBytes: 56_317,
        sha256: 'a8e0e4ec53810e433789b54a5c0134a7eaa2ffca595a6334d54c00da858841d3',
        sha256Source: ZIPFORMER_PINNED,
      },
      {
        name: 'bpe.vocab',
        sizeBytes: 12_564,
        sha256: 'd0b642f3a2eacd5fadefdeff9e0e1358cab729647cbb7fe58cf738e1f7407029',
        sha256Source: ZIPFORMER_PINNED,
      },
    ],
    sources: huggingFaceSources(
      ZIPFORMER_REPO,
      ZIPFORMER_REVISION,
      'pkufool/sherpa-onnx-streaming-zipformer-bilingual-zh-en-2023-02-20',
    ),
  },
  {
    id: 'punct-ct-transformer-zh-en',
    name: 'sherpa-onnx-punct-ct-transformer-zh-en-vocab272727-2024-04-12',
    engine: 'sherpa',
    role: 'punctuation',
    language: 'zh',
    languages: ['zh', 'en'],
    sizeBytes: 294_372_519,
    diskBytes: 294_372_519,
    description:
      'Punctuation for the streaming zh-en model (sherpa-onnx CT-Transformer): commas and full stops in each definite line; not a recognizer',
    descriptionZh:
      '流式中英模型的标点（sherpa-onnx CT-Transformer）：给每个定稿的句子加上逗号和句号；不是识别模型',
    licence: 'Apache-2.0',
    streaming: false,
    publishedAccuracy: [],
    packaging: 'files',
    files: [
      {
        name: 'model.onnx',
        sizeBytes: 294_372_519,
        sha256: 'e93593a6dbd69a07f8734ef269dbe861a379755f8d1c8354719432116f2c44bd',
        sha256Source: PUNCT_PINNED,
      },
    ],
    sources: huggingFaceSources(PUNCT_REPO, PUNCT_REVISION, PUNCT_REPO),
  },
  {
    id: 'vosk-small-cn',
    name: 'vosk-model-small-cn-0.22',
    engine: 'vosk',
    language: 'zh',
    languages: ['zh'],
    sizeBytes: 43_898_754,
    diskBytes: null,
    description: 'Chinese (Mandarin), small (Vosk): light on an old laptop, no punctuation',
    descriptionZh: '普通话小模型（Vosk）：旧笔记本也跑得动，没有标点',
    licence: 'Apache-2.0',
    streaming: true,
    publishedAccuracy: VOSK_SMALL_CN_ACCURACY,
    packaging: 'zip',
    files: [
      {
        name: 'vosk-model-small-cn-0.22.zip',
        sizeBytes: 43_898_754,
        sha256: '3af8b0e7e0f835ae9d414ce5df580237a3cfb08d586c9fbbb0f7ff29ad5b14ba',
        sha256Source: VOSK_SHA256,
        md5: 'd1a8e82933dcc7632667c036b0bb3dbb',
      },
    ],
    sources: [VOSK_OFFICIAL],
  },
  {
    id: 'vosk-small-en-us',
    name: 'vosk-model-small-en-us-0.15',
    engine: 'vosk',
    language: 'en',
    languages: ['en'],
    sizeBytes: 41_205_931,
    diskBytes: null,
    description: 'US English, small: good for a lecture on a laptop',
    descriptionZh: '美式英语小模型：笔记本上听英文课够用',
    licence: 'Apache-2.0',
    streaming: true,
    recommended: true,
    publishedAccuracy: [],
    packaging: 'zip',
    files: [
      {
        name: 'vosk-model-small-en-us-0.15.zip',
        sizeBytes: 41_205_931,
        sha256: '30f26242c4eb449f948e42cb302dd7a686cb29a3423a8367f99ff41780942498',
        sha256Source: VOSK_SHA256,
      },
    ],
    sources: [VOSK_OFFICIAL],
  },
  {
    id: 'vosk-en-us-lgraph',
    name: 'vosk-model-en-us-0.22-lgraph',
    engine: 'vosk',
    language: 'en',
    languages: ['en'],
    sizeBytes: 130_557_655,
    diskBytes: null,
    description: 'US English, large: more accurate, needs about 1 GB of memory',
    descriptionZh: '美式英语大模型：更准确，需要约 1 GB 内存',
    licence: 'Apache-2.0',
    streaming: true,
    publishedAccuracy: [],
    packaging: 'zip',
    files: [
      {
        name: 'vosk-model-en-us-0.22-lgraph.zip',
        sizeBytes: 130_557_655,
        sha256: 'd9838b4aaa82a75c4a17f5aca300eaca129aaab2a7cbf951bafbb500eb9c4334',
        sha256Source: VOSK_SHA256,
        md5: '2df36985f8ed8eb7b78476cadcdab48f',
      },
    ],
    sources: [VOSK_OFFICIAL],
  },
];

/**
 * The student's own mirror (MODELS_BASE_URL) as a source: archives at `<base>/<file>`, models
 * of separate files at `<base>/<folder>/<file>`; undefined when the setting is empty.
 */
export function mirrorSource(
  entry: Pick<ModelCatalogueEntry, 'name' | 'packaging'>,
  baseUrl: string,
): ModelSource | undefined {
  if (!baseUrl.trim()) return undefined;
  const base =
    entry.packaging === 'zip'
      ? trimmed(baseUrl)
      : `${trimmed(baseUrl)}/${encodeURIComponent(entry.name)}`;
  return folderSource(
    'mirror',
    'mirror',
    { zh: '你的镜像（MODELS_BASE_URL）', en: 'your mirror (MODELS_BASE_URL)' },
    base,
  );
}

/** The sources of an entry in the order they are tried: the student's mirror first. */
export function sourcesOf(entry: ModelCatalogueEntry, baseUrl = ''): ModelSource[] {
  const mirror = mirrorSource(entry, baseUrl);
  return mirror ? [mirror, ...entry.sources] : [...entry.sources];
}

/** What an entry is for (`recognizer` unless it says otherwise). */
export function roleOf(entry: Pick<ModelCatalogueEntry, 'role'>): ModelRole {
  return entry.role ?? 'recognizer';
}

/** Whether some file of the entry has no published SHA-256. */
export function isUnchecked(entry: Pick<ModelCatalogueEntry, 'files'>): boolean {
  return entry.files.some((file) => file.sha256 === null);
}

/**
 * The folder name of a model, checked: letters, digits, `.`, `_` and `-`, not starting with a
 * dot (folders starting with one are the manager's own), at most 100 characters.
 */
export function modelNameProblem(name: string): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name)) {
    return `"${name}" is not a model folder name: use letters, digits, ".", "_" and "-" (at most 100, not starting with a dot)`;
  }
  return undefined;
}

/** The class language a model's folder name suggests (`-cn-`, `-zh-` or `-en-`), if any. */
export function languageFromName(name: string): ModelLanguage | undefined {
  const parts = name.toLowerCase().split(/[-_.]/);
  if (parts.includes('cn') || parts.includes('zh')) return 'zh';
  if (parts.includes('en')) return 'en';
  return undefined;
}
