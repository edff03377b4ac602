// The class agent: answers a student's questions by looking things up — the transcript of this
// and earlier classes, the material page by page, the notes — with agent-std's tools and the
// class tools. /api/ask and the rescue and catch-up follow-up chats use it.
//
// The loop is agent-std's toolbox and OpenAI adapter driven by the backend's LLM service, so
// that answers stream as they are written (each model call is a streamed turn) and every LLM
// failure has the codes and messages of the other AI features. Bounds: at most
// AGENT_MAX_STEPS model calls (the last one may not call tools), and AGENT_BUDGET_TIMEOUTS
// times LLM_TIMEOUT for the whole question. The tools only read, and only class content:
// class_files and class_file_read see the transcripts, class files, material texts and notes of
// the data folder (read-view.ts) — never its tokens, logs, database or settings — and there is
// no shell and no HTTP: the model's provider is the only address reached.
import { createToolbox, isToolError } from '@class-assistant/agent-std';
import { runOpenAIToolCalls, toOpenAITools } from '@class-assistant/agent-std/openai';
import type {
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { isServerError, ServerError } from '../errors.ts';
import { localized } from '../language.ts';
import { type ChatTurn, chatHistory } from '../llm/class-ai.ts';
import type { ChatMessage, LlmService, ModelTurn } from '../llm/llm-client.ts';
import { splitMaterialPages } from '../llm/material-context.ts';
import type { PromptLoader } from '../llm/prompts.ts';
import { localDateTime } from '../material/cite-store.ts';
import { AGENT_BUDGET_TIMEOUTS, AGENT_MAX_STEPS } from './agent-constants.ts';
import { createClassFileTools } from './class-file-tools.ts';
import { createClassTools } from './class-tools.ts';
import type { LectureClass, Lectures } from './lectures.ts';

export { AGENT_BUDGET_TIMEOUTS, AGENT_MAX_STEPS };
/**
 * The agent-std namespaces the agent uses beside the class tools. Not std.fs: it would read
 * every file of the data folder; the class file tools read class content only.
 */
export const AGENT_NAMESPACES = [
  'std.text',
  'std.regex',
  'std.time',
  'std.math',
  'std.json',
] as const;
/** Transcript lines of the current class given with a question. */
const RECENT_LINES = 12;

/** A tool call of an answer, as the API reports it. */
export interface AgentToolCall {
  id: string;
  name: string;
  /** The arguments the model sent: an object, or the text as sent when it was no JSON object. */
  arguments: Record<string, unknown> | string;
  ok: boolean;
}

/** How one question runs. */
export interface AgentRunOptions {
  /** Each piece of the answer as the model writes it. */
  onDelta?: (text: string) => void;
  /** Each tool call as it starts (`ok` follows in the answer's `toolCalls`). */
  onToolCall?: (call: Omit<AgentToolCall, 'ok'>) => void;
  /** Cancels the question (the client went away). */
  signal?: AbortSignal;
}

/** An answer and the tool calls behind it. */
export interface AgentAnswer {
  answer: string;
  toolCalls: AgentToolCall[];
}

/** The class agent. */
export interface ClassAgent {
  /** A question about a class (the current one, or `classId`), after the chat so far. */
  ask(
    request: { question: string; history: ChatTurn[]; classId?: string },
    options?: AgentRunOptions,
  ): Promise<AgentAnswer>;
  /**
   * Answers a conversation made elsewhere (system message first, the question last) with the
   * tools: the rescue and catch-up follow-ups. `purpose` names it in error messages.
   */
  answer(messages: ChatMessage[], purpose: string, options?: AgentRunOptions): Promise<AgentAnswer>;
}

/** Options of {@link createClassAgent}. */
export interface ClassAgentOptions {
  lectures: Lectures;
  llm: LlmService;
  prompt: PromptLoader;
  /** LLM_TIMEOUT in milliseconds, read at each question. */
  llmTimeoutMs: () => number;
  now?: () => Date;
  logger?: { debug(object: object, message?: string): void };
}

/** Arguments as sent, parsed when they are a JSON object. */
function readArguments(text: string): Record<string, unknown> | string {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      return value as Record<string, unknown>;
    }
  } catch {
    // Not JSON: reported as sent.
  }
  return text;
}

/** A provider that does not do function calling refuses the request's `tools` (HTTP 400). */
function refusesTools(error: unknown): boolean {
  if (!isServerError(error) || error.code !== 'LLM_ERROR') return false;
  const cause = error.cause as { status?: unknown; message?: unknown } | undefined;
  return (
    typeof cause?.status === 'number' &&
    [400, 404, 422].includes(cause.status) &&
    /tool|function/i.test(String(cause.message ?? ''))
  );
}

const WEEKDAYS = ['日', '一', '二', '三', '四', '五', '六'];

/** What the agent is told about the class a question is about. */
export function classBrief(lecture: LectureClass, now: Date): string {
  const facts: string[] = [];
  if (lecture.id === null && lecture.entries.length === 0) {
    facts.push('还没有课堂记录 (no class recorded yet)');
  } else {
    facts.push(lecture.id ? `编号 ${lecture.id}` : '当前课堂');
    if (lecture.courseName) facts.push(`课程：${lecture.courseName}`);
    if (lecture.date) facts.push(`开始于 ${lecture.date}`);
    facts.push(lecture.live ? '正在上课' : '已下课');
    facts.push(`共 ${lecture.entries.length} 行字幕`);
    const pages = lecture.material?.trim()
      ? splitMaterialPages(lecture.material).filter((page) => page.page > 0).length || 1
      : 0;
    facts.push(
      pages > 0 ? `资料：${lecture.materialName || 'material'}（共 ${pages} 页）` : '没有课程资料',
    );
    facts.push(lecture.notes ? '有课后笔记' : '没有课后笔记');
  }
  const sections = [
    `【现在】${localDateTime(now)}（星期${WEEKDAYS[now.getDay()]}）`,
    `【这节课】${facts.join('；')}`,
  ];
  if (lecture.current && lecture.entries.length > 0) {
    const recent = lecture.entries
      .slice(-RECENT_LINES)
      .map((entry) => `#${entry.id} [${entry.time ?? ''}] ${entry.text}`);
    sections.push(`【最近的课堂转录】\n${recent.join('\n')}`);
  }
  return sections.join('\n');
}

/**
 * A class for the API: a class id that is not in the library is 404 CLASS_NOT_FOUND (the
 * route has checked its form).
 */
export async function readClass(lectures: Lectures, classId?: string): Promise<LectureClass> {
  try {
    return await lectures.read(classId);
  } catch (error) {
    if (!isToolError(error)) throw error;
    throw new ServerError(
      'CLASS_NOT_FOUND',
      localized(`课程库里没有课堂 ${classId}。`, `No class ${classId} in the library.`),
      { field: 'class_id' },
    );
  }
}

/**
 * Creates the class agent over the student's lectures.
 *
 * @example
 * const agent = createClassAgent({ lectures, llm, prompt, llmTimeoutMs: () => 60_000 });
 * const { answer, toolCalls } = await agent.ask({ question: '第 12 页讲了什么？', history: [] });
 */
export function createClassAgent(options: ClassAgentOptions): ClassAgent {
  const { lectures, llm, prompt } = options;
  const now = options.now ?? (() => new Date());
  const toolbox = createToolbox({
    uses: AGENT_NAMESPACES,
    tools: [...createClassTools(lectures), ...createClassFileTools(lectures.dataDir)],
  });
  const tools: ChatCompletionFunctionTool[] = toOpenAITools(toolbox);

  const budgetError = (budgetMs: number) =>
    new ServerError(
      'LLM_TIMEOUT',
      localized(
        `课堂助手没能在 ${budgetMs / 1000} 秒内答完这个问题（LLM_TIMEOUT 的 ${AGENT_BUDGET_TIMEOUTS} 倍）：请换个更具体的问法再试。`,
        `The class assistant could not finish answering within ${budgetMs / 1000} s (${AGENT_BUDGET_TIMEOUTS} times LLM_TIMEOUT): try a more specific question.`,
      ),
      { field: 'LLM_TIMEOUT' },
    );

  const run = async (
    conversation: ChatMessage[],
    purpose: string,
    runOptions: AgentRunOptions,
  ): Promise<AgentAnswer> => {
    llm.assertConfigured();
    const [system, ...rest] = conversation;
    const rules = await prompt('class-agent');
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: `${system?.content ?? ''}\n\n${rules}`.trim() },
      ...rest,
    ];
    const budgetMs = AGENT_BUDGET_TIMEOUTS * options.llmTimeoutMs();
    const budget = AbortSignal.timeout(budgetMs);
    const signal = runOptions.signal ? AbortSignal.any([runOptions.signal, budget]) : budget;
    const toolCalls: AgentToolCall[] = [];
    const written: string[] = [];
    let offered = tools;
    for (let step = 1; step <= AGENT_MAX_STEPS; step++) {
      const last = step === AGENT_MAX_STEPS;
      if (last) {
        messages.push({
          role: 'system',
          content:
            '查阅次数已用完：请根据已经查到的内容直接回答，不要再调用工具。(No more tool calls: answer now from what you found.)',
        });
      }
      // Text of a turn that also calls tools ("let me look that up") is part of the answer:
      // a blank line separates it from what follows, so the pieces add up to the answer.
      let started = false;
      const onDelta = (text: string) => {
        if (!started && written.length > 0) runOptions.onDelta?.('\n\n');
        started = true;
        runOptions.onDelta?.(text);
      };
      let turn: ModelTurn;
      try {
        turn = await llm.turn(
          { messages, purpose, signal, tools: offered, toolChoice: last ? 'none' : 'auto' },
          onDelta,
        );
      } catch (error) {
        if (budget.aborted && runOptions.signal?.aborted !== true) throw budgetError(budgetMs);
        if (offered.length > 0 && toolCalls.length === 0 && refusesTools(error)) {
          // A model without function calling still answers, from what the conversation holds.
          options.logger?.debug(
            { purpose },
            'class agent: the model refuses tools; asking without',
          );
          offered = [];
          step -= 1;
          continue;
        }
        throw error;
      }
      if (turn.text.trim() !== '') written.push(turn.text);
      if (turn.toolCalls.length === 0 || (offered.length === 0 && written.length > 0)) {
        return { answer: written.join('\n\n'), toolCalls };
      }
      if (last || offered.length === 0) {
        throw new ServerError(
          'LLM_BAD_RESPONSE',
          localized(
            `大模型在 ${AGENT_MAX_STEPS} 轮之后仍在调用工具，没有给出回答：请换个更具体的问法再试。`,
            `The model still called tools after ${AGENT_MAX_STEPS} steps instead of answering: try a more specific question.`,
          ),
        );
      }
      messages.push({ role: 'assistant', content: turn.text || null, tool_calls: turn.toolCalls });
      const outcomes = await runOpenAIToolCalls(toolbox, turn.toolCalls, {
        signal,
        onToolCallStart: (call) =>
          runOptions.onToolCall?.({
            id: call.id,
            name: call.name,
            arguments: readArguments(call.arguments),
          }),
      });
      for (const outcome of outcomes) {
        messages.push(outcome.message);
        toolCalls.push({
          id: outcome.message.tool_call_id,
          name: outcome.name,
          arguments: readArguments(outcome.arguments),
          ok: outcome.outcome.ok,
        });
        options.logger?.debug(
          {
            tool: outcome.name,
            ok: outcome.outcome.ok,
            ...(outcome.outcome.ok ? {} : { code: outcome.outcome.error.code }),
          },
          'class agent: tool call',
        );
      }
    }
    // The loop returns or throws at its last step.
    throw budgetError(budgetMs);
  };

  return {
    async ask(request, runOptions = {}) {
      llm.assertConfigured();
      const lecture = await readClass(lectures, request.classId);
      const system = await prompt('ask');
      return run(
        [
          { role: 'system', content: system },
          { role: 'user', content: classBrief(lecture, now()) },
          ...chatHistory(request.history),
          { role: 'user', content: request.question },
        ],
        'class question',
        runOptions,
      );
    },
    answer: (messages, purpose, runOptions = {}) => run(messages, purpose, runOptions),
  };
}
