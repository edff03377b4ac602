// A deterministic synthetic class for the benchmark: recogniser segments in Chinese, English
// and mixed text, with what real recognisers produce — repeats, corrections that extend the
// previous segment, sentences cut in two, hesitation fragments — and names called now and then.
import type { Keyword } from '../src/index.ts';

export interface ClassEvent {
  kind: 'sentence' | 'repeat' | 'correction' | 'cut' | 'fragment' | 'call';
  text: string;
  startMs: number;
  endMs: number;
}

// mulberry32: small, fast, deterministic.
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const OPENERS = [
  '我们来看',
  '下面讲',
  '注意这里的',
  '大家想一下',
  '回顾一下',
  '接下来是',
  '请看',
  '先说说',
  '重点是',
  '考试常考',
];
const TOPICS = [
  '矩阵的秩',
  '行列式的性质',
  '特征值',
  '特征向量',
  '向量空间',
  '线性映射',
  '二次型',
  '正交矩阵',
  '相似对角化',
  '高斯消元',
  '基和维数',
  '内积空间',
  '施密特正交化',
  '逆矩阵',
  '分块矩阵',
  '克拉默法则',
  '齐次方程组',
  '线性相关性',
  '极大无关组',
  '秩-零化度定理',
  '奇异值分解',
  '最小二乘',
  '投影矩阵',
  '谱定理',
  '若尔当标准形',
  '合同变换',
];
const DETAILS = [
  '为什么成立',
  '的几何意义',
  '怎么计算',
  '和上节课的联系',
  '的一个反例',
  '在工程里的应用',
  '的证明思路',
  '的常见错误',
  '要记住的结论',
  '的两种写法',
  '什么时候用',
  '跟维数的关系',
  '的计算技巧',
  '在考试里怎么考',
];
const EN_OPENERS = [
  'Now look at',
  "Let's review",
  'Keep in mind',
  'Here is',
  'Think about',
  'Remember',
];
const EN_TOPICS = [
  'the rank of a matrix',
  'eigenvalues',
  'the determinant',
  'orthogonal projections',
  'the null space',
  'least squares',
  'change of basis',
  'the spectral theorem',
];
const EN_DETAILS = [
  'and why it matters',
  'with a small example',
  'step by step',
  'for the homework',
  'in two dimensions',
  'one more time',
];
const TOOLS = ['Python', 'NumPy', 'MATLAB', 'Jupyter', 'PCA', 'SVD', 'GPU', 'Excel'];
const FRAGMENTS = ['嗯', '啊', '呃', '那个', '好', '嗯嗯', 'um', 'uh', '。', '对'];
const SURNAMES = [...'王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹'];
const GIVEN = [...'伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉兰萍红鹏辉建文志博宇浩然'];
const EN_NAMES = ['Tom', 'Alice', 'Bob', 'Emma', 'Kevin', 'Lucy', 'Jack', 'Sophia', 'Leo', 'Mia'];

/** `count` distinct keywords: Chinese names (alert), some English names, attention words. */
export function makeKeywords(count: number, seed: number): Keyword[] {
  const next = random(seed);
  const seen = new Set<string>();
  const keywords: Keyword[] = [];
  const attention = [
    '作业',
    '考试',
    '期末',
    '小测',
    '重点',
    'homework',
    'exam',
    'quiz',
    'deadline',
  ];
  for (const text of attention.slice(0, Math.min(attention.length, Math.ceil(count / 10)))) {
    seen.add(text);
    keywords.push({ text, level: 'attention' });
  }
  while (keywords.length < count) {
    const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
    const text =
      next() < 0.05
        ? `${pick(EN_NAMES)} ${pick(EN_NAMES)}son`
        : `${pick(SURNAMES)}${pick(GIVEN)}${next() < 0.5 ? pick(GIVEN) : ''}`;
    if (seen.has(text)) continue;
    seen.add(text);
    keywords.push({ text, level: 'alert' });
  }
  return keywords;
}

/** `count` recogniser segments of one class, 0.75 s apart on average (3 hours for 14,400). */
export function syntheticClass(count: number, seed: number): ClassEvent[] {
  const next = random(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const names = makeKeywords(500, 1).filter((keyword) => keyword.level === 'alert');
  const events: ClassEvent[] = [];
  const recent: string[] = [];
  let clock = 0;
  let exampleNumber = 1;

  const sentence = () => {
    const roll = next();
    if (roll < 0.6) {
      return `${pick(OPENERS)}${pick(TOPICS)}${pick(DETAILS)}，第${exampleNumber++}个例子${pick(['。', '？', '！', '。'])}`;
    }
    if (roll < 0.8)
      return `${pick(EN_OPENERS)} ${pick(EN_TOPICS)} ${pick(EN_DETAILS)}, example ${exampleNumber++}.`;
    return `我们用 ${pick(TOOLS)} 来算${pick(TOPICS)}，这是第${exampleNumber++}步。`;
  };
  const push = (kind: ClassEvent['kind'], text: string, gapMs?: number) => {
    const startMs = clock + (gapMs ?? Math.floor(next() * 300));
    const endMs = startMs + 300 + Math.floor(next() * 600);
    clock = endMs;
    events.push({ kind, text, startMs, endMs });
  };

  while (events.length < count) {
    const roll = next();
    if (roll < 0.62 || recent.length < 5) {
      const text = sentence();
      push('sentence', text);
      recent.push(text);
    } else if (roll < 0.72) {
      // The recogniser repeats a recent sentence, sometimes with other punctuation.
      const text = pick(recent.slice(-5));
      push('repeat', next() < 0.5 ? text : text.replace(/[。？！.]$/u, ''));
    } else if (roll < 0.8) {
      // A shorter hypothesis first, then the same sentence extended.
      const text = sentence();
      const cut = Math.max(4, Math.floor([...text].length * 0.6));
      push('correction', [...text].slice(0, cut).join(''));
      push('correction', text, 0);
      recent.push(text);
    } else if (roll < 0.87) {
      // A sentence cut by the voice-activity detector: two segments close together.
      const text = sentence();
      const cut = Math.floor([...text].length / 2);
      push('cut', [...text].slice(0, cut).join(''));
      push('cut', [...text].slice(cut).join(''), 150 + Math.floor(next() * 600));
      recent.push(text);
    } else if (roll < 0.95) {
      push('fragment', pick(FRAGMENTS));
    } else {
      const text = `${pick(names).text}，你来回答一下第${exampleNumber++}题。`;
      push('call', text);
      recent.push(text);
    }
    if (recent.length > 20) recent.shift();
  }
  return events.slice(0, count);
}
