/**
 * The language of what a student reads: Chinese by default (the product's users and the original
 * client are Chinese), English when the request prefers it (`Accept-Language`; the desktop UI
 * sends its own language). Error codes never change with the language — only messages do.
 */

/** A language messages are written in. */
export type Language = 'zh' | 'en';

/** One message in both languages. */
export interface Localized {
  zh: string;
  en: string;
}

/** A message: in both languages, or one text used for both (a name, a number, a technical text). */
export type MessageText = string | Localized;

/** The language used when a request says nothing: the original client's users read Chinese. */
export const DEFAULT_LANGUAGE: Language = 'zh';

/**
 * Both languages of a message.
 *
 * @example
 * const saved = localized('设置已保存。', 'Settings saved.');
 * textIn(saved, 'en'); // 'Settings saved.'
 */
export function localized(zh: string, en: string): Localized {
  return { zh, en };
}

/** The text of a message in `language`. */
export function textIn(text: MessageText, language: Language): string {
  return typeof text === 'string' ? text : text[language];
}

/** True for a message in both languages. */
export function isLocalized(text: unknown): text is Localized {
  return (
    typeof text === 'object' &&
    text !== null &&
    typeof (text as Localized).zh === 'string' &&
    typeof (text as Localized).en === 'string'
  );
}

/**
 * The language an `Accept-Language` header prefers: the tag with the highest weight whose
 * primary language is zh or en (earlier tags win ties), else Chinese. `en-US,en;q=0.9` is
 * English; `zh-CN,zh;q=0.9,en;q=0.8`, `*`, `fr` and no header are Chinese.
 *
 * @example
 * preferredLanguage('en-GB,en;q=0.9,zh;q=0.5'); // 'en'
 */
export function preferredLanguage(header: string | readonly string[] | undefined): Language {
  const text = Array.isArray(header) ? header.join(',') : ((header as string | undefined) ?? '');
  let best: { language: Language; weight: number } | undefined;
  for (const part of text.split(',')) {
    const [tag = '', ...parameters] = part.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0];
    if (primary !== 'zh' && primary !== 'en') continue;
    let weight = 1;
    for (const parameter of parameters) {
      const match = /^\s*q\s*=\s*([0-9.]+)\s*$/i.exec(parameter);
      if (match) weight = Number(match[1]);
    }
    if (!Number.isFinite(weight) || weight <= 0) continue;
    if (!best || weight > best.weight) best = { language: primary, weight };
  }
  return best?.language ?? DEFAULT_LANGUAGE;
}

/** The language of a request (its `Accept-Language` header). */
export function requestLanguage(request: {
  headers: Readonly<Record<string, string | string[] | undefined>>;
}): Language {
  return preferredLanguage(request.headers['accept-language']);
}
