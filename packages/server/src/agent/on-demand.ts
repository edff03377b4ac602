// The class agent, its tools and the lectures they read, made on first need: agent-std (its 33
// tools, the OpenAI adapter) loads with the first question, MCP request or connection lookup,
// not when the backend starts.
import type { ClassAgent, ClassAgentOptions } from './class-agent.ts';
import type { ClassTools } from './class-tools.ts';
import type { LectureIndex, Lectures } from './lectures.ts';

/** The class agent's parts, each made once, on first use. */
export interface OnDemandAgent {
  lectures(): Promise<Lectures>;
  classTools(): Promise<ClassTools>;
  /** Answers like the class agent; the first call loads it. */
  agent: ClassAgent;
}

/**
 * The class agent over the data folder, loaded on first use.
 *
 * @example
 * const parts = onDemandAgent({ dataDir, index: null }, { llm, prompt, llmTimeoutMs: () => 60_000 });
 * await parts.agent.ask({ question: '第 12 页讲了什么？', history: [] });
 */
export function onDemandAgent(
  source: { dataDir: string; index: LectureIndex | null; currentPage?: () => number | null },
  options: Omit<ClassAgentOptions, 'lectures'>,
): OnDemandAgent {
  let lectures: Promise<Lectures> | undefined;
  let classTools: Promise<ClassTools> | undefined;
  let agent: Promise<ClassAgent> | undefined;
  const parts: OnDemandAgent = {
    lectures: () => {
      lectures ??= import('./lectures.ts').then(({ createLectures }) => createLectures(source));
      return lectures;
    },
    classTools: () => {
      classTools ??= Promise.all([import('./class-tools.ts'), parts.lectures()]).then(
        ([{ createClassTools }, made]) => createClassTools(made),
      );
      return classTools;
    },
    agent: {
      ask: async (...args) => (await loadAgent()).ask(...args),
      answer: async (...args) => (await loadAgent()).answer(...args),
    },
  };
  const loadAgent = () => {
    agent ??= Promise.all([import('./class-agent.ts'), parts.lectures()]).then(
      ([{ createClassAgent }, made]) => createClassAgent({ ...options, lectures: made }),
    );
    return agent;
  };
  return parts;
}
