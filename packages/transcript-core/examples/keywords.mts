// Keyword alerts on their own: a keywords file as a student writes it, what is wrong in it, and
// which lines of a lecture alert with and without homophone matching.
//
//   node examples/keywords.mts
import { createKeywordMatcher, parseKeywords } from '@class-assistant/transcript-core';

const file = `# my keywords
张三
Tom
[注意]
作业
deadline
[重要]
？？
`;
const { keywords, problems } = parseKeywords(file); // never throws: bad lines are reported
console.log(`keywords: ${keywords.map(({ text, level }) => `${text} (${level})`).join(', ')}`);
for (const problem of problems) console.log(`line ${problem.line}: ${problem.message}`);

const lines = [
  '章三你来回答一下。', // the recogniser wrote a homophone of the name
  'See you tomorrow, everyone.', // "Tom" is not a word here
  'Tom你来说一下', // …but it is here
  '作业周五交，DEADLINE 是晚上十点。', // case and width do not matter
];
for (const homophones of ['off', 'pinyin'] as const) {
  const matcher = createKeywordMatcher(keywords, { homophones });
  console.log(`homophones: ${homophones}`);
  for (const line of lines) {
    const found = matcher.match(line).map((match) => `${match.keyword} (${match.level})`);
    console.log(`  ${line} → ${found.join(', ') || 'no alert'}`);
  }
}
