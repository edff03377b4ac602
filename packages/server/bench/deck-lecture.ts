// A generated lecture that walks a deck, for the page tracker's bench: a 24-page data-structures
// course (Chinese with English terms) and a transcript that talks about each page in its own
// words (never the slide's sentences), with asides and filler that match no page, and the
// teacher sometimes going back a page for a moment. A fixed seed makes runs comparable.

/** One slide: its text as extracted, and what the teacher says about it. */
interface DeckPage {
  title: string;
  bullets: string[];
  /** The slide's terms as a teacher says them (some in English). */
  spoken: string[];
}

const DECK: DeckPage[] = [
  {
    title: '数据结构 Data Structures 课程概览',
    bullets: ['线性表、树、图三大类逻辑结构', '排序与查找算法', '考核：平时作业 30%，期末考试 70%'],
    spoken: ['逻辑结构', '线性表', '三大类', '期末考试', '平时作业'],
  },
  {
    title: '算法复杂度 Complexity',
    bullets: ['时间复杂度 T(n) 与大 O 记号 Big-O', '空间复杂度：额外存储', '渐近分析忽略常数项'],
    spoken: ['时间复杂度', '大O记号', 'big-O', '渐近分析', '常数项', '空间复杂度'],
  },
  {
    title: '顺序表 Array list',
    bullets: ['连续存储单元依次存放元素', '随机访问 O(1)', '插入删除需要移动元素，平均移动 n/2 个'],
    spoken: ['顺序表', '连续存储', '随机访问', '移动元素', 'array'],
  },
  {
    title: '单链表 Singly linked list',
    bullets: ['结点 node = 数据域 + 指针域 next', '头结点简化边界处理', '按序号查找需从头遍历'],
    spoken: ['单链表', '结点', '指针域', '数据域', '头结点', 'linked list'],
  },
  {
    title: '链表的插入与删除',
    bullets: [
      '插入：s->next = p->next; p->next = s',
      '删除：找到前驱结点再修改指针',
      '先连后断，避免断链',
    ],
    spoken: ['前驱结点', '先连后断', '断链', '修改指针', '插入删除'],
  },
  {
    title: '双向链表与循环链表',
    bullets: [
      'doubly linked list：prior 与 next 两个指针',
      '循环链表尾结点指回头结点',
      '双向链表删除不用找前驱',
    ],
    spoken: ['双向链表', '循环链表', 'prior', '尾结点', 'doubly'],
  },
  {
    title: '栈 Stack',
    bullets: ['后进先出 LIFO', '只在栈顶进行 push 和 pop', '顺序栈与链栈'],
    spoken: ['后进先出', '栈顶', 'push', 'pop', 'LIFO', '链栈'],
  },
  {
    title: '栈的应用',
    bullets: ['括号匹配', '表达式求值：中缀转后缀', '后缀表达式用操作数栈计算'],
    spoken: ['括号匹配', '表达式求值', '后缀表达式', '中缀', '操作数栈'],
  },
  {
    title: '队列 Queue',
    bullets: ['先进先出 FIFO', '队头 front 出队，队尾 rear 入队', '链队列'],
    spoken: ['先进先出', '队头', '队尾', '出队', '入队', 'FIFO'],
  },
  {
    title: '循环队列 Circular queue',
    bullets: [
      'rear = (rear + 1) % MaxSize 取模回绕',
      '判满：(rear + 1) % MaxSize == front',
      '牺牲一个单元区分队空和队满',
    ],
    spoken: ['循环队列', '取模', '判满', '队满', '牺牲一个单元', 'circular'],
  },
  {
    title: '递归 Recursion',
    bullets: ['递归出口与递归体', '系统调用栈保存现场', '汉诺塔问题 Hanoi'],
    spoken: ['递归出口', '递归体', '调用栈', '汉诺塔', 'recursion', '保存现场'],
  },
  {
    title: '二叉树 Binary tree',
    bullets: ['每个结点至多两棵子树：左子树、右子树', '满二叉树与完全二叉树', '性质：n0 = n2 + 1'],
    spoken: ['二叉树', '左子树', '右子树', '满二叉树', '完全二叉树', 'binary tree'],
  },
  {
    title: '二叉树的遍历 Traversal',
    bullets: ['先序、中序、后序遍历', '层序遍历借助队列', '由先序和中序序列还原二叉树'],
    spoken: ['先序', '中序', '后序', '层序遍历', 'traversal', '还原'],
  },
  {
    title: '二叉搜索树 BST',
    bullets: [
      '左子树的关键字都小于根，右子树都大于根',
      '查找路径长度与树高有关',
      '删除结点用中序后继替代',
    ],
    spoken: ['二叉搜索树', '关键字', '中序后继', '查找路径', 'BST', '树高'],
  },
  {
    title: '平衡二叉树 AVL',
    bullets: ['平衡因子 = 左子树高 − 右子树高', 'LL、RR、LR、RL 四种旋转', '保证查找 O(log n)'],
    spoken: ['平衡因子', '旋转', 'AVL', '平衡二叉树', '左旋', '右旋'],
  },
  {
    title: '堆 Heap 与优先队列',
    bullets: [
      '大顶堆：父结点不小于孩子',
      '插入上浮 sift up，删除下沉 sift down',
      '优先队列 priority queue 用堆实现',
    ],
    spoken: ['大顶堆', '小顶堆', '上浮', '下沉', 'heap', '优先队列'],
  },
  {
    title: '哈夫曼树 Huffman tree',
    bullets: ['带权路径长度 WPL 最小', '每次合并权值最小的两棵树', '哈夫曼编码是前缀编码'],
    spoken: ['哈夫曼', '带权路径长度', 'WPL', '前缀编码', '权值最小', 'Huffman'],
  },
  {
    title: '图 Graph 的存储',
    bullets: ['顶点 vertex 与边 edge', '邻接矩阵：稠密图', '邻接表：稀疏图'],
    spoken: ['邻接矩阵', '邻接表', '顶点', '稀疏图', '稠密图', 'vertex'],
  },
  {
    title: '图的遍历 DFS 与 BFS',
    bullets: ['深度优先搜索 DFS 用栈或递归', '广度优先搜索 BFS 用队列', 'visited 数组防止重复访问'],
    spoken: ['深度优先', '广度优先', 'DFS', 'BFS', 'visited', '重复访问'],
  },
  {
    title: '最短路径 Dijkstra',
    bullets: ['单源最短路径', '每次选距离最小的未确定顶点，松弛其邻边', '不能处理负权边'],
    spoken: ['最短路径', 'Dijkstra', '松弛', '负权边', '单源', '距离最小'],
  },
  {
    title: '最小生成树 MST',
    bullets: ['Prim 算法从顶点出发加点', 'Kruskal 算法按边权排序加边', '并查集判断是否成环'],
    spoken: ['最小生成树', 'Prim', 'Kruskal', '并查集', '成环', '边权'],
  },
  {
    title: '快速排序 Quicksort',
    bullets: ['选枢轴 pivot 划分', '平均 O(n log n)，最坏 O(n²)', '不稳定排序'],
    spoken: ['快速排序', '枢轴', 'pivot', '划分', 'quicksort', '最坏情况'],
  },
  {
    title: '归并排序 Merge sort',
    bullets: ['分治：拆成两半分别排序再合并', '需要 O(n) 辅助空间', '稳定排序'],
    spoken: ['归并排序', '分治', '辅助空间', '稳定', 'merge', '合并'],
  },
  {
    title: '哈希表 Hash table',
    bullets: [
      '哈希函数把关键字映射到地址',
      '冲突处理：开放定址法、链地址法',
      '装填因子影响查找效率',
    ],
    spoken: ['哈希函数', '冲突', '开放定址', '链地址法', '装填因子', 'hash'],
  },
];

/** How the teacher puts a page's terms into a sentence ({a}, {b}: two of its terms). */
const TEMPLATES = [
  '好，那我们接下来讲{a}',
  '大家看这里，{a}和{b}要分清楚',
  '{a}这个地方考试经常出题，尤其是{b}',
  '我举个例子，比如说{a}',
  '为什么要有{a}呢，你想一下{b}',
  '所以{a}其实就是这么回事',
  '这个{a}你们课后自己再推一遍',
  '有同学问{a}跟{b}有什么关系',
  '那么{b}怎么做，先看{a}',
  'so the {a} here, 也就是说{b}',
];

/** Lines about no page: the teacher talking to the room, or thinking aloud. */
const ASIDES = [
  '后面的同学安静一点',
  '投影是不是有点暗，我调一下',
  '上周的作业还有几位同学没交',
  '我们休息五分钟再继续',
  '大家能听清楚吗',
  '今天外面挺冷的，注意别感冒',
  '嗯，对吧，就是这样',
  '好，我们看下一个',
  '这个大家应该都明白了吧',
  '下课以后到办公室找我',
];

/**
 * Sentences with the course's common words only (on many slides): they belong to the page the
 * teacher is on, but say little about which page that is.
 */
const GENERAL = [
  '这里的指针一定要小心',
  '时间复杂度大家自己算一下',
  '插入的时候注意边界',
  '查找的效率怎么样呢',
  '这个结点的位置要记住',
  '写代码的时候先把图画出来',
  '这一步要遍历一遍',
  '考试的时候这类题很常见',
];

/** Mulberry32: a small seeded generator, so every run hears the same lecture. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** The deck as the material text an upload gives (`--- 第 N 页 ---` before each slide). */
export function deckMaterial(): string {
  return DECK.map(
    (page, index) =>
      `--- 第 ${index + 1} 页 ---\n${page.title}\n${page.bullets.join('\n')}\n${index + 1}\n`,
  ).join('\n');
}

/** One line of the lecture: what was heard, when, and the page the teacher was on. */
export interface LectureLine {
  text: string;
  atMs: number;
  page: number;
  /** An aside, or a sentence with no word of its own page. */
  aside: boolean;
}

/**
 * The lecture walking the deck: 4 to 8 lines a page, an aside after about one line in eight and
 * a sentence of common course words after one in seven, a step back
 * to the previous page (two lines) on about one page in six, recognition slips (a character of a
 * term lost) in one line of ten.
 */
export function deckLecture(seed: number): LectureLine[] {
  const random = seeded(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const lines: LectureLine[] = [];
  let atMs = 0;
  const say = (pageIndex: number) => {
    const page = DECK[pageIndex]!;
    const a = pick(page.spoken);
    let b = pick(page.spoken);
    if (b === a) b = page.spoken[(page.spoken.indexOf(a) + 1) % page.spoken.length]!;
    let text = pick(TEMPLATES).replace('{a}', a).replace('{b}', b);
    if (random() < 0.1) {
      // A slip of recognition: one character of the term lost.
      const characters = Array.from(a);
      characters.splice(Math.floor(random() * characters.length), 1);
      text = text.replace(a, characters.join(''));
    }
    return text;
  };
  const push = (text: string, page: number, aside: boolean) => {
    atMs += 4000 + Math.floor(random() * 5000);
    lines.push({ text, atMs, page, aside });
  };
  for (let index = 0; index < DECK.length; index++) {
    const count = 4 + Math.floor(random() * 5);
    for (let line = 0; line < count; line++) {
      push(say(index), index + 1, false);
      if (random() < 0.125) push(pick(ASIDES), index + 1, true);
      if (random() < 0.15) push(pick(GENERAL), index + 1, true);
      if (index > 1 && line === 1 && random() < 1 / 6) {
        // "As we saw on the previous slide…"
        push(say(index - 1), index, false);
        push(say(index - 1), index, false);
      }
    }
  }
  return lines;
}
