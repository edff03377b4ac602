// What the rest of the backend knows of the class agent without loading it (and agent-std).

/** The names of the class tools (see class-tools.ts). */
export const CLASS_TOOL_NAMES = [
  'class_list',
  'class_search',
  'class_lines',
  'material_page',
  'notes_read',
] as const;

/** The most model calls for one question; the last one is not offered tools. */
export const AGENT_MAX_STEPS = 8;
/** The time budget of one question, in multiples of LLM_TIMEOUT. */
export const AGENT_BUDGET_TIMEOUTS = 3;
