import { ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import type { ChatMessage, LlmService } from './llm-client.ts';
import { selectMaterial, selectMaterialPages } from './material-context.ts';
import { createPromptLoader } from './prompts.ts';

/** A transcript line as the AI features see it. */
export interface TranscriptLine {
  /** The line's id in its class (as in /api/transcript and the live events). */
  id: number;
  timestamp: string;
  text: string;
  /** The material page the teacher was on (the page tracker's); null or absent when unknown. */
  page?: number | null;
}

/** What the AI features know about the class. */
export interface ClassContext {
  courseName: string;
  /** Text of data/current_class_material.txt. */
  material: string;
  /** Its file under data/cite, as the transcript header names it ('' without material). */
  materialName: string;
  /** The history-summary block (older, folded lines), possibly empty. */
  historySummary: string;
  /** The transcript lines in the window the feature looks at. */
  lines: TranscriptLine[];
  /** The material page the teacher is on now (the page tracker's); null or absent when unknown. */
  currentPage?: number | null;
}

/** One earlier turn of a follow-up chat. */
export interface ChatTurn {
  role: 'user' | 'assistant';
  content: string;
}

/** The rescue answer: `{context, question, answer}`, the original client's shape. */
export interface RescueResult {
  question: string;
  context: string;
  answer: string;
  /** `json` when the model followed the format, `text` when its plain answer was used. */
  format: 'json' | 'text';
  /** Ids of the transcript lines the model named as its basis (the question's line), maybe none. */
  cited: number[];
}

/** The pages of the class material that went into a prompt (see selectMaterialPages). */
interface MaterialBasis {
  pages: number[];
}

/** Budgets in characters for what goes into one prompt. */
const MATERIAL_BUDGET = 12_000;
const NOTES_MATERIAL_BUDGET = 24_000;
const NOTES_TRANSCRIPT_BUDGET = 60_000;
const CHAT_HISTORY_TURNS = 20;

/** How one feature call runs: streamed through `onDelta` when given, cancelled by `signal`. */
export interface AiCallOptions {
  onDelta?: (text: string) => void;
  signal?: AbortSignal;
}

/** The LLM features of a class: rescue, catch-up, their chats, notes and history folding. */
export interface ClassAi {
  rescue(context: ClassContext, options?: AiCallOptions): Promise<RescueResult & MaterialBasis>;
  /**
   * The conversation of a rescue follow-up — its prompt, the class, the earlier analysis, the
   * chat so far, the question — for the class agent to answer (with its tools).
   */
  rescueChatMessages(
    request: {
      context: string;
      question: string;
      answer: string;
      followup: string;
      history: ChatTurn[];
    },
    context: ClassContext,
  ): Promise<ChatMessage[]>;
  catchup(
    context: ClassContext,
    options?: AiCallOptions,
  ): Promise<{ summary: string } & MaterialBasis>;
  /** The conversation of a catch-up follow-up, for the class agent (see rescueChatMessages). */
  catchupChatMessages(
    request: { summary: string; question: string; history: ChatTurn[] },
    context: ClassContext,
  ): Promise<ChatMessage[]>;
  notes(
    context: Omit<ClassContext, 'materialName'> & { date: string },
    options?: AiCallOptions,
  ): Promise<string>;
  /** The `summarize` function of history folding: old summary + lines -> new summary. */
  fold(previousSummary: string, lines: string[], options?: AiCallOptions): Promise<string>;
}

/** Creates the class AI on an LLM service; prompts come from `promptsDir` or the bundled ones. */
export function createClassAi(llm: LlmService, options: { promptsDir?: string } = {}): ClassAi {
  const prompt = createPromptLoader(options.promptsDir);

  const run = async (
    messages: ChatMessage[],
    purpose: string,
    options: AiCallOptions = {},
  ): Promise<string> => {
    const request = { messages, purpose, ...(options.signal ? { signal: options.signal } : {}) };
    return options.onDelta ? llm.stream(request, options.onDelta) : llm.complete(request);
  };

  return {
    async rescue(context, options) {
      // Check the configuration before reading prompts, so the error names the missing key.
      llm.assertConfigured();
      const system = await prompt('rescue');
      const sections = classSections(context, MATERIAL_BUDGET, '最近约两分钟的课堂转录');
      const text = await run(
        [
          { role: 'system', content: system },
          { role: 'user', content: sections.text },
        ],
        'rescue',
        options,
      );
      const result = parseRescueAnswer(text);
      // Only lines that were sent count: a model may invent a number.
      const sent = new Set(context.lines.map((line) => line.id));
      return {
        ...result,
        cited: result.cited.filter((id) => sent.has(id)),
        pages: sections.pages,
      };
    },
    async rescueChatMessages(request, context) {
      llm.assertConfigured();
      const system = await prompt('rescue-chat');
      const analysis = `【之前的分析】\n课堂上下文：${request.context}\n老师的问题：${request.question}\n建议回答：${request.answer}`;
      return [
        { role: 'system', content: system },
        {
          role: 'user',
          content: `${classSections(context, MATERIAL_BUDGET, '最近的课堂转录').text}\n\n${analysis}`,
        },
        ...chatHistory(request.history),
        { role: 'user', content: request.followup },
      ];
    },
    async catchup(context, options) {
      llm.assertConfigured();
      const system = await prompt('catchup');
      const sections = classSections(context, MATERIAL_BUDGET, '最近约十分钟的课堂转录');
      const summary = await run(
        [
          { role: 'system', content: system },
          { role: 'user', content: sections.text },
        ],
        'catch-up',
        options,
      );
      return { summary, pages: sections.pages };
    },
    async catchupChatMessages(request, context) {
      llm.assertConfigured();
      const system = await prompt('catchup-chat');
      return [
        { role: 'system', content: system },
        {
          role: 'user',
          content: `${classSections(context, MATERIAL_BUDGET, '最近的课堂转录').text}\n\n【之前的进度总结】\n${request.summary}`,
        },
        ...chatHistory(request.history),
        { role: 'user', content: request.question },
      ];
    },
    async notes(context, options) {
      llm.assertConfigured();
      const system = await prompt('notes');
      const header = `【课程名称】${context.courseName || '未命名课程'}\n【日期】${context.date}`;
      const transcript = fitTranscript(context.lines, NOTES_TRANSCRIPT_BUDGET);
      const material = selectMaterial(context.material, transcript, NOTES_MATERIAL_BUDGET);
      const sections = [
        header,
        material.trim() ? `【课程资料】\n${material}` : '【课程资料】\n（未选择资料）',
        context.historySummary.trim() ? `【历史摘要】\n${context.historySummary}` : '',
        `【课堂转录】\n${transcript}`,
      ].filter((section) => section !== '');
      const text = await run(
        [
          { role: 'system', content: system },
          { role: 'user', content: sections.join('\n\n') },
        ],
        'notes',
        options,
      );
      return stripFence(text);
    },
    async fold(previousSummary, lines, options) {
      llm.assertConfigured();
      const system = await prompt('fold');
      const text = await run(
        [
          { role: 'system', content: system },
          {
            role: 'user',
            content: `【已有的历史摘要】\n${previousSummary.trim() || '（无）'}\n\n【需要合并的课堂转录】\n${lines.join('\n')}`,
          },
        ],
        'history folding',
        options,
      );
      return stripFence(text).trim();
    },
  };
}

/** `(第 N 页) ` before a line whose page is known, '' otherwise. */
function pageLabel(line: TranscriptLine): string {
  return line.page ? `(第 ${line.page} 页) ` : '';
}

/**
 * Transcript lines as `#id [HH:MM:SS] (第 N 页) text`: the id lets the model name the lines it
 * used; the page (when known) is the material page the teacher was on.
 */
function formatLines(lines: TranscriptLine[]): string {
  return lines
    .map((line) => `#${line.id} [${line.timestamp}] ${pageLabel(line)}${line.text}`)
    .join('\n');
}

/**
 * Material first, then summary, then transcript: a stable prefix lets providers cache it. Also
 * returns the material pages that went in.
 */
function classSections(
  context: ClassContext,
  materialBudget: number,
  transcriptTitle: string,
): { text: string } & MaterialBasis {
  const transcript = formatLines(context.lines);
  const material = selectMaterialPages(context.material, transcript, materialBudget);
  const text = [
    material.text.trim() ? `【课程资料】\n${material.text}` : '【课程资料】\n（未选择资料）',
    context.courseName ? `【课程名称】${context.courseName}` : '',
    context.historySummary.trim() ? `【历史摘要】\n${context.historySummary}` : '',
    context.currentPage ? `【老师现在讲到】资料第 ${context.currentPage} 页` : '',
    `【${transcriptTitle}】\n${transcript || '（暂无）'}`,
  ]
    .filter((section) => section !== '')
    .join('\n\n');
  return { text, pages: material.pages };
}

/** The newest lines that fit the budget. */
function fitTranscript(lines: TranscriptLine[], budget: number): string {
  const kept: string[] = [];
  let used = 0;
  for (let index = lines.length - 1; index >= 0; index--) {
    const line = `[${lines[index]!.timestamp}] ${pageLabel(lines[index]!)}${lines[index]!.text}`;
    if (used + line.length + 1 > budget) {
      kept.push('（更早的转录过长，已省略）');
      break;
    }
    kept.push(line);
    used += line.length + 1;
  }
  return kept.reverse().join('\n');
}

/** The last turns of a follow-up chat, as messages. */
export function chatHistory(history: ChatTurn[]): ChatMessage[] {
  return history
    .slice(-CHAT_HISTORY_TURNS)
    .map((turn) => ({ role: turn.role, content: turn.content }));
}

function stripFence(text: string): string {
  const fenced = /^\s*```(?:markdown|md)?\s*\n([\s\S]*?)\n```\s*$/.exec(text);
  return fenced ? fenced[1]! : text;
}

/**
 * Reads the rescue answer: a JSON object with question/context/answer, tolerating a code fence or
 * words around it. A model that ignored the format still helps: its text becomes the answer.
 */
export function parseRescueAnswer(text: string): RescueResult {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start >= 0 && end > start) {
    try {
      const parsed = JSON.parse(text.slice(start, end + 1)) as Record<string, unknown>;
      const field = (name: string) =>
        typeof parsed[name] === 'string' ? (parsed[name] as string).trim() : '';
      if (field('answer') !== '' || field('question') !== '') {
        return {
          question: field('question'),
          context: field('context'),
          answer: field('answer'),
          format: 'json',
          cited: citedLines(parsed.lines),
        };
      }
    } catch {
      // Not JSON after all: fall through to the plain-text answer.
    }
  }
  const answer = text.trim();
  if (answer === '') {
    throw new ServerError(
      'LLM_BAD_RESPONSE',
      localized('大模型返回了空的救场回答。', 'The LLM sent an empty rescue answer.'),
    );
  }
  return { question: '', context: '', answer, format: 'text', cited: [] };
}

/** Line ids from the answer's `lines` field: numbers, or strings such as "#12" or "12". */
function citedLines(value: unknown): number[] {
  if (!Array.isArray(value)) return [];
  const ids = value
    .map((item) => (typeof item === 'string' ? Number(item.replace(/^\s*#/, '')) : item))
    .filter((item): item is number => Number.isInteger(item) && (item as number) > 0);
  return [...new Set(ids)];
}
