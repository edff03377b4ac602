import { fc, test as property } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { isTranscriptCoreError } from './errors.ts';
import { createKeywordMatcher } from './keyword-matcher.ts';

const names = (matches: { keyword: string }[]) => matches.map((match) => match.keyword);

describe('createKeywordMatcher', () => {
  const matcher = createKeywordMatcher([
    { text: '点名', level: 'alert' },
    { text: '哪位同学', level: 'alert' },
    { text: 'Tom', level: 'alert' },
    { text: '作业', level: 'attention' },
    { text: 'final exam', level: 'attention' },
  ]);

  it('finds Chinese, English and mixed keywords in one line', () => {
    expect(matcher.match('下面点名，哪位同学没交作业？')).toEqual([
      {
        keyword: '点名',
        level: 'alert',
        count: 1,
        homophone: false,
        matchedText: '点名',
        personal: false,
      },
      {
        keyword: '哪位同学',
        level: 'alert',
        count: 1,
        homophone: false,
        matchedText: '哪位同学',
        personal: false,
      },
      {
        keyword: '作业',
        level: 'attention',
        count: 1,
        homophone: false,
        matchedText: '作业',
        personal: false,
      },
    ]);
    expect(names(matcher.match('Tom，the final exam 在下周'))).toEqual(['Tom', 'final exam']);
  });

  it('ignores case and width (NFKC)', () => {
    expect(names(matcher.match('ＴＯＭ you next'))).toEqual(['Tom']);
    expect(names(matcher.match('FINAL   EXAM next week'))).toEqual(['final exam']);
  });

  it('matches English keywords on word boundaries only, Chinese anywhere', () => {
    expect(matcher.match('see you tomorrow, Tommy')).toEqual([]);
    expect(names(matcher.match('Tom你来回答'))).toEqual(['Tom']);
    expect(names(matcher.match('我们来点名吧'))).toEqual(['点名']);
  });

  it('matches across the spaces a recogniser puts between Chinese words', () => {
    expect(names(matcher.match('下面 点 名'))).toEqual(['点名']);
  });

  it('counts occurrences, returns alert level first, and nothing for an empty line', () => {
    const [match] = matcher.match('点名点名，再点名');
    expect(match?.count).toBe(3);
    expect(names(matcher.match('作业：点名'))).toEqual(['点名', '作业']);
    expect(matcher.match('')).toEqual([]);
  });

  it('keeps a keyword listed twice once, at the higher level', () => {
    const twice = createKeywordMatcher([
      { text: '考试', level: 'attention' },
      { text: '考试', level: 'alert' },
    ]);
    expect(twice.keywords).toEqual([{ text: '考试', level: 'alert' }]);
  });

  it('marks the matches of personal keywords, keeping a keyword personal when listed twice', () => {
    const mine = createKeywordMatcher([
      { text: '张三', level: 'alert', personal: true },
      { text: '点名', level: 'alert' },
      { text: '作业', level: 'attention' },
      { text: '作业', level: 'alert', personal: true },
    ]);
    expect(
      mine.match('张三，点名了，交作业').map(({ keyword, personal }) => [keyword, personal]),
    ).toEqual([
      ['张三', true],
      ['点名', false],
      ['作业', true],
    ]);
    expect(mine.keywords).toEqual([
      { text: '张三', level: 'alert', personal: true },
      { text: '点名', level: 'alert' },
      { text: '作业', level: 'alert', personal: true },
    ]);
  });

  it('rejects a malformed keyword list with a clear error', () => {
    const attempt = () =>
      createKeywordMatcher([{ text: '张三', level: 'urgent' as 'alert' }], { homophones: 'off' });
    expect(attempt).toThrow(/keywords\[0\].*"alert" \| "attention"/);
    try {
      attempt();
    } catch (error) {
      expect(isTranscriptCoreError(error) && error.code).toBe('TRANSCRIPT_INVALID_ARGUMENT');
    }
    expect(() => createKeywordMatcher([], { homophones: 'yes' as 'off' })).toThrow(/homophones/);
  });

  it('rejects options that are not an object with a coded error', () => {
    expect(() => createKeywordMatcher(['张三'], null as never)).toThrow(
      expect.objectContaining({
        code: 'TRANSCRIPT_INVALID_ARGUMENT',
        message: 'createKeywordMatcher: options must be an object, got null',
      }),
    );
  });
});

describe('homophone tolerance', () => {
  it('is off by default: a misheard name does not alert', () => {
    expect(createKeywordMatcher(['张三']).match('章三你来回答')).toEqual([]);
  });

  it('pinyin: same-sounding characters alert, flagged as homophone', () => {
    const matcher = createKeywordMatcher(['张三', '李明'], { homophones: 'pinyin' });
    expect(matcher.match('章三你来回答')).toEqual([
      {
        keyword: '张三',
        level: 'alert',
        count: 1,
        homophone: true,
        matchedText: '章三',
        personal: false,
      },
    ]);
    expect(names(matcher.match('请黎明同学'))).toEqual(['李明']);
    // Different sounds do not match.
    expect(matcher.match('张山你来')).toEqual([]);
    // An exact occurrence is not a homophone match.
    expect(matcher.match('张三你来')[0]?.homophone).toBe(false);
  });

  it('pinyin: reports the right characters in lines with astral and Latin text', () => {
    const matcher = createKeywordMatcher(['张三'], { homophones: 'pinyin' });
    expect(matcher.match('😀 OK，𠀀第二排的章三 and 张叁')).toEqual([
      {
        keyword: '张三',
        level: 'alert',
        count: 2,
        homophone: true,
        matchedText: '章三',
        personal: false,
      },
    ]);
  });

  it('pinyin: any reading of a polyphonic character in the keyword counts', () => {
    // 乐 reads le or yue: the name 乐乐 heard as 月月 still alerts.
    const matcher = createKeywordMatcher(['乐乐'], { homophones: 'pinyin' });
    expect(names(matcher.match('月月你来回答'))).toEqual(['乐乐']);
  });

  it('fuzzy-pinyin: also zh/z, sh/s, n/l, f/h and -ng/-n confusions', () => {
    const pinyinOnly = createKeywordMatcher(['张三', '刘宁'], { homophones: 'pinyin' });
    const fuzzy = createKeywordMatcher(['张三', '刘宁'], { homophones: 'fuzzy-pinyin' });
    expect(pinyinOnly.match('张珊你来')).toEqual([]);
    expect(names(fuzzy.match('张珊你来'))).toEqual(['张三']);
    expect(names(fuzzy.match('牛林来回答'))).toEqual(['刘宁']);
  });

  it('never applies to a keyword given homophones: false', () => {
    const matcher = createKeywordMatcher(
      [{ text: '四十', level: 'alert', homophones: false }, '张三'],
      { homophones: 'fuzzy-pinyin' },
    );
    // 思是 reads si shi, as 四十 does.
    expect(matcher.match('意思是这样')).toEqual([]);
    expect(names(matcher.match('四十号，章三'))).toEqual(['四十', '张三']);
  });

  it('never applies to single characters or to non-Chinese keywords', () => {
    const matcher = createKeywordMatcher(['三', 'Tom'], { homophones: 'fuzzy-pinyin' });
    expect(matcher.match('散会')).toEqual([]);
    expect(matcher.match('汤姆')).toEqual([]);
  });
});

describe('keyword matcher properties', () => {
  const word = fc.string({
    unit: fc.constantFrom(...'点名作业张三abc'),
    minLength: 1,
    maxLength: 4,
  });

  property.prop([
    fc.array(word, { minLength: 1, maxLength: 12 }),
    fc.string({ maxLength: 30 }),
    word,
  ])('a keyword embedded between Chinese text is always found', (keywords, noise, chosen) => {
    const matcher = createKeywordMatcher([...keywords, chosen]);
    const line = `${noise.replace(/[a-z]/giu, '')}的${chosen}了`;
    expect(names(matcher.match(line))).toContain(chosen);
  });
});
