// The JSON-text fields of a request: `request.corpus.context` (hot words, dialog context, or
// location info) and `request.sensitive_words_filter`, with the service's limits on them. Token
// counts use estimateTokens (see tokens.ts for how "tokens" are counted).
import type { AsrEndpoint } from './endpoints.ts';
import type { AsrIssue } from './errors.ts';
import { estimateTokens } from './tokens.ts';

/** The service's limits on `corpus.context`. */
export const CONTEXT_LIMITS = {
  /** Hot words sent directly, on the bidirectional endpoints: total estimated tokens. */
  hotwordTokensBidirectional: 100,
  /** Hot words sent directly, on `bigmodel_nostream`: number of hot words. */
  hotwordsNostream: 5000,
  /** Dialog context: total estimated tokens of its text items. */
  dialogTokens: 800,
  /** Dialog context: number of rounds (items of `context_data`). */
  dialogRounds: 20,
  /** Dialog context: images accepted. */
  dialogImages: 1,
  /** Dialog context: largest image, in bytes ("500 KB" read as 500,000 bytes, the stricter reading). */
  imageBytes: 500_000,
} as const;

/** Hot words sent directly in `corpus.context` (before JSON encoding). */
export interface HotwordsContext {
  hotwords: Array<{ word: string }>;
}

/** One round of dialog context: a text, or an image by URL (http(s) or a `data:` URL). */
export type DialogContextItem = { text: string } | { image_url: string };

/** Dialog context in `corpus.context` (before JSON encoding); `context_data` is newest first. */
export interface DialogContext {
  context_type: 'dialog_ctx';
  context_data: DialogContextItem[];
}

/**
 * Builds the JSON text of `corpus.context` for hot words: trimmed, empty and repeated words
 * dropped, order kept. Limits are checked when the request is validated.
 *
 * @example
 * const request = { ..., request: { model_name: 'bigmodel', corpus: { context: buildHotwordsContext(['photosynthesis', 'chlorophyll']) } } };
 */
export function buildHotwordsContext(words: readonly string[]): string {
  const seen = new Set<string>();
  const hotwords: Array<{ word: string }> = [];
  for (const raw of words) {
    const word = raw.trim();
    if (word === '' || seen.has(word)) continue;
    seen.add(word);
    hotwords.push({ word });
  }
  return JSON.stringify({ hotwords } satisfies HotwordsContext);
}

/** Result of {@link buildDialogContext}. */
export interface BuiltDialogContext {
  /** The JSON text for `corpus.context`. */
  context: string;
  /** How many of the oldest items were left out to fit the limits. */
  dropped: number;
}

/**
 * Builds the JSON text of `corpus.context` for dialog context from items ordered NEWEST FIRST, as
 * the protocol wants them. Keeps the newest items that fit 20 rounds and 800 estimated tokens and
 * one image (the newest), and says how many were dropped — the service would cut the oldest
 * silently; here the caller knows.
 *
 * @example
 * const { context, dropped } = buildDialogContext([{ text: 'What is chlorophyll?' }, { text: 'Today: photosynthesis.' }]);
 */
export function buildDialogContext(
  newestFirst: readonly DialogContextItem[],
  limits: { maxTokens?: number; maxRounds?: number } = {},
): BuiltDialogContext {
  const maxTokens = limits.maxTokens ?? CONTEXT_LIMITS.dialogTokens;
  const maxRounds = limits.maxRounds ?? CONTEXT_LIMITS.dialogRounds;
  const kept: DialogContextItem[] = [];
  let tokens = 0;
  let images = 0;
  for (const item of newestFirst) {
    if (kept.length >= maxRounds) break;
    if ('image_url' in item) {
      if (images >= CONTEXT_LIMITS.dialogImages) continue;
      images += 1;
      kept.push({ image_url: item.image_url });
      continue;
    }
    const itemTokens = estimateTokens(item.text);
    if (tokens + itemTokens > maxTokens) break;
    tokens += itemTokens;
    kept.push({ text: item.text });
  }
  const context: DialogContext = { context_type: 'dialog_ctx', context_data: kept };
  return { context: JSON.stringify(context), dropped: newestFirst.length - kept.length };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseObject(
  text: string,
  issues: AsrIssue[],
  path: string,
): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    issues.push({ path, message: `must be JSON text: ${(error as Error).message}` });
    return undefined;
  }
  if (!isPlainObject(value)) {
    issues.push({ path, message: 'must be the JSON text of an object' });
    return undefined;
  }
  return value;
}

function checkImageUrl(url: unknown, path: string, issues: AsrIssue[]): void {
  if (typeof url !== 'string' || url === '') {
    issues.push({ path, message: 'must be a non-empty string' });
    return;
  }
  if (url.startsWith('data:')) {
    const match = /^data:image\/(jpeg|jpg|png);base64,([A-Za-z0-9+/]*={0,2})$/i.exec(url);
    if (!match) {
      issues.push({
        path,
        message: 'data URL must be base64 of image/jpeg, image/jpg or image/png',
      });
      return;
    }
    const base64 = match[2] ?? '';
    const bytes =
      Math.floor((base64.length * 3) / 4) -
      (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
    if (bytes > CONTEXT_LIMITS.imageBytes) {
      issues.push({
        path,
        message: `image is ${bytes} bytes; the limit is ${CONTEXT_LIMITS.imageBytes} (500 KB)`,
      });
    }
    return;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    issues.push({ path, message: 'must be an http(s) URL or a data: URL' });
    return;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    issues.push({ path, message: 'must be an http(s) URL or a data: URL' });
    return;
  }
  const extension = /\.([A-Za-z0-9]+)$/.exec(parsed.pathname)?.[1]?.toLowerCase();
  if (extension !== undefined && !['jpg', 'jpeg', 'png'].includes(extension)) {
    issues.push({ path, message: `image must be jpeg, jpg or png (URL ends in .${extension})` });
  }
}

/**
 * Checks the JSON text of `corpus.context`: its shape and the endpoint-independent limits. The
 * hot-word limit differs per endpoint: see {@link checkHotwordLimit}. Paths are relative to the
 * context JSON, e.g. `hotwords[2].word`.
 */
export function checkCorpusContext(text: string): AsrIssue[] {
  const issues: AsrIssue[] = [];
  const context = parseObject(text, issues, '');
  if (context === undefined) return issues;
  const known = ['hotwords', 'context_type', 'context_data', 'loc_info'];
  if (!known.some((key) => key in context)) {
    issues.push({
      path: '',
      message:
        'must hold hotwords, a dialog context (context_type "dialog_ctx" + context_data) or loc_info',
    });
    return issues;
  }
  if ('hotwords' in context) checkHotwords(context.hotwords, issues);
  if ('context_type' in context || 'context_data' in context) checkDialog(context, issues);
  if ('loc_info' in context) {
    const loc = context.loc_info;
    if (!isPlainObject(loc) || typeof loc.city_name !== 'string' || loc.city_name === '') {
      issues.push({
        path: 'loc_info.city_name',
        message: 'must be a non-empty string (a prefecture-level city)',
      });
    }
  }
  return issues;
}

function checkHotwords(hotwords: unknown, issues: AsrIssue[]): void {
  if (!Array.isArray(hotwords)) {
    issues.push({ path: 'hotwords', message: 'must be a list of { "word": string } objects' });
    return;
  }
  hotwords.forEach((item: unknown, index) => {
    if (!isPlainObject(item) || typeof item.word !== 'string' || item.word.trim() === '') {
      issues.push({ path: `hotwords[${index}].word`, message: 'must be a non-empty string' });
    }
  });
}

/**
 * The hot-word limit of `endpoint` for a `corpus.context` JSON text: at most 100 estimated tokens
 * in total on the bidirectional endpoints, at most 5000 hot words on bigmodel_nostream. Returns
 * the problem, or undefined when within the limit (or when the text holds no hot-word list).
 */
export function checkHotwordLimit(text: string, endpoint: AsrEndpoint): AsrIssue | undefined {
  let context: unknown;
  try {
    context = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isPlainObject(context) || !Array.isArray(context.hotwords)) return undefined;
  const hotwords: unknown[] = context.hotwords;
  if (endpoint === 'bigmodel_nostream') {
    if (hotwords.length <= CONTEXT_LIMITS.hotwordsNostream) return undefined;
    return {
      path: 'hotwords',
      message: `${hotwords.length} hot words; bigmodel_nostream accepts at most ${CONTEXT_LIMITS.hotwordsNostream}`,
    };
  }
  let tokens = 0;
  for (const item of hotwords) {
    if (isPlainObject(item) && typeof item.word === 'string') tokens += estimateTokens(item.word);
  }
  if (tokens <= CONTEXT_LIMITS.hotwordTokensBidirectional) return undefined;
  return {
    path: 'hotwords',
    message: `about ${tokens} tokens of hot words; ${endpoint} accepts at most ${CONTEXT_LIMITS.hotwordTokensBidirectional}`,
  };
}

function checkDialog(context: Record<string, unknown>, issues: AsrIssue[]): void {
  if (context.context_type !== 'dialog_ctx') {
    issues.push({
      path: 'context_type',
      message: `must be "dialog_ctx" (got ${JSON.stringify(context.context_type)})`,
    });
  }
  const data = context.context_data;
  if (!Array.isArray(data)) {
    issues.push({
      path: 'context_data',
      message: 'must be a list of { "text" } or { "image_url" } objects, newest first',
    });
    return;
  }
  if (data.length > CONTEXT_LIMITS.dialogRounds) {
    issues.push({
      path: 'context_data',
      message: `${data.length} rounds; at most ${CONTEXT_LIMITS.dialogRounds} are accepted (buildDialogContext drops the oldest)`,
    });
  }
  let tokens = 0;
  let images = 0;
  data.forEach((item: unknown, index) => {
    const path = `context_data[${index}]`;
    if (isPlainObject(item) && typeof item.text === 'string') {
      tokens += estimateTokens(item.text);
    } else if (isPlainObject(item) && 'image_url' in item) {
      images += 1;
      checkImageUrl(item.image_url, `${path}.image_url`, issues);
    } else {
      issues.push({ path, message: 'must be { "text": string } or { "image_url": string }' });
    }
  });
  if (tokens > CONTEXT_LIMITS.dialogTokens) {
    issues.push({
      path: 'context_data',
      message: `about ${tokens} tokens of text; at most ${CONTEXT_LIMITS.dialogTokens} are accepted (buildDialogContext drops the oldest)`,
    });
  }
  if (images > CONTEXT_LIMITS.dialogImages) {
    issues.push({
      path: 'context_data',
      message: `${images} images; at most ${CONTEXT_LIMITS.dialogImages} is accepted`,
    });
  }
}

/** Checks the JSON text of `request.sensitive_words_filter`. */
export function checkSensitiveWordsFilter(text: string): AsrIssue[] {
  const issues: AsrIssue[] = [];
  const filter = parseObject(text, issues, '');
  if (filter === undefined) return issues;
  for (const [key, value] of Object.entries(filter)) {
    if (key === 'system_reserved_filter') {
      if (typeof value !== 'boolean') issues.push({ path: key, message: 'must be a boolean' });
    } else if (key === 'filter_with_empty' || key === 'filter_with_signed') {
      if (!Array.isArray(value) || value.some((word) => typeof word !== 'string')) {
        issues.push({ path: key, message: 'must be a list of strings' });
      }
    } else {
      issues.push({
        path: key,
        message:
          'unknown field (expected system_reserved_filter, filter_with_empty, filter_with_signed)',
      });
    }
  }
  return issues;
}
