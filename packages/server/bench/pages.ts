// The page tracker (src/material/page-tracker.ts) on generated lectures walking a 24-page deck
// (bench/deck-lecture.ts, fixed seeds): the share of lines given the right page, how many lines
// of a new page the teacher says before the tracker is on it (1 = on the first), and the cost
// of a line — against a baseline measured in the same run: the best page of the latest line
// alone, no window, no hysteresis.
import { createPageTracker, type PageTrackerTuning } from '../src/material/page-tracker.ts';
import { deckLecture, deckMaterial, type LectureLine } from './deck-lecture.ts';
import { printTable } from './table.ts';

const SEEDS = [1, 2, 3, 4, 5];
const COST_ROUNDS = 20;

/** The best page of each line on its own (a line with nothing of the deck keeps the last). */
const BASELINE: Partial<PageTrackerTuning> = { hysteresis: false, minLineScore: Number.MIN_VALUE };

interface Outcome {
  lines: number;
  right: number;
  asides: number;
  asidesRight: number;
  /** For each move on to the next page: the line of the new page the tracker followed on. */
  follow: number[];
  /** The same for the steps back to the previous page (and the returns from them). */
  followBack: number[];
  microsPerLine: number;
}

function measure(material: string, lectures: LectureLine[][], tuning: Partial<PageTrackerTuning>) {
  const outcome: Outcome = {
    lines: 0,
    right: 0,
    asides: 0,
    asidesRight: 0,
    follow: [],
    followBack: [],
    microsPerLine: 0,
  };
  for (const lecture of lectures) {
    const tracker = createPageTracker(material, tuning);
    const shown = lecture.map((line) => tracker.push(line.text, line.atMs).page);
    lecture.forEach((line, index) => {
      outcome.lines++;
      if (shown[index] === line.page) outcome.right++;
      if (line.aside) {
        outcome.asides++;
        if (shown[index] === line.page) outcome.asidesRight++;
      }
      if (index === 0 || lecture[index - 1]!.page === line.page) return;
      // The teacher moved on (or back): on which line of the new page does the tracker follow?
      let at = index;
      while (at < lecture.length && lecture[at]!.page === line.page && shown[at] !== line.page)
        at++;
      const followed = at < lecture.length && lecture[at]!.page === line.page;
      const lines = followed ? at - index + 1 : Number.POSITIVE_INFINITY;
      const back = line.page < lecture[index - 1]!.page || lecture[index - 2]?.page === line.page;
      (back ? outcome.followBack : outcome.follow).push(lines);
    });
  }
  // Cost: every lecture again, COST_ROUNDS times (the tracker built once per lecture, as once
  // per class).
  const begin = performance.now();
  let pushed = 0;
  for (let round = 0; round < COST_ROUNDS; round++) {
    for (const lecture of lectures) {
      const tracker = createPageTracker(material, tuning);
      for (const line of lecture) tracker.push(line.text, line.atMs);
      pushed += lecture.length;
    }
  }
  outcome.microsPerLine = ((performance.now() - begin) * 1000) / pushed;
  return outcome;
}

/** The deck five times over (120 pages): what a line costs against a long deck. */
function bigDeck(material: string, copies: number): { text: string; pages: number } {
  const pages = material.split(/^(?=--- 第 \d+ 页 ---$)/m);
  const text = Array.from({ length: copies }, () => pages)
    .flat()
    .map((page, index) => page.replace(/^--- 第 \d+ 页 ---$/m, `--- 第 ${index + 1} 页 ---`))
    .join('');
  return { text, pages: pages.length * copies };
}

const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`;
const fixed = (value: number, digits = 2) => value.toFixed(digits);

function rows(label: string, outcome: Outcome): string[] {
  const max = Math.max(...outcome.follow);
  const mean = outcome.follow.reduce((sum, value) => sum + value, 0) / outcome.follow.length;
  const backInTwo = outcome.followBack.filter((value) => value <= 2).length;
  return [
    label,
    percent(outcome.right, outcome.lines),
    percent(outcome.asidesRight, outcome.asides),
    Number.isFinite(max) ? String(max) : 'never',
    Number.isFinite(mean) ? fixed(mean) : 'never',
    `${backInTwo}/${outcome.followBack.length}`,
    fixed(outcome.microsPerLine, 1),
  ];
}

const material = deckMaterial();
const lectures = SEEDS.map(deckLecture);
const totalLines = lectures.reduce((sum, lecture) => sum + lecture.length, 0);
const tracker = measure(material, lectures, {});
const baseline = measure(material, lectures, BASELINE);
const big = bigDeck(material, 5);
const bigTracker = measure(big.text, lectures, {});
const bigBaseline = measure(big.text, lectures, BASELINE);
const buildBegin = performance.now();
for (let round = 0; round < COST_ROUNDS; round++) createPageTracker(big.text);
const buildMs = (performance.now() - buildBegin) / COST_ROUNDS;

printTable(
  `Page tracker (node ${process.version}): ${lectures.length} generated lectures (seeds ${SEEDS.join(', ')}), ${totalLines} lines walking a 24-page deck`,
  [
    ['', 'page right', 'asides right', 'next: max', 'next: mean', 'back ≤ 2', 'µs/line'],
    rows('best page of the latest line (baseline)', baseline),
    rows('page tracker (window + hysteresis)', tracker),
    ['', '', '', '', '', '', ''],
    [`cost against a ${big.pages}-page deck`, '', '', '', '', '', ''],
    [`  baseline`, '', '', '', '', '', fixed(bigBaseline.microsPerLine, 1)],
    [`  page tracker`, '', '', '', '', '', fixed(bigTracker.microsPerLine, 1)],
    ['', '', '', '', '', '', ''],
    [
      `indexing the ${big.pages}-page deck (once per class)`,
      '',
      '',
      '',
      '',
      '',
      `${fixed(buildMs * 1000, 0)} µs`,
    ],
  ],
);
console.log(
  '\nnext: on which line of the next page the tracker shows it (1 = its first line), max and mean over every move on;\nback ≤ 2: steps back to the previous page (and returns) followed within 2 lines, of all.\nTargets: page right ≥ 85 %, next max ≤ 2.',
);
