// The class agent's lookups in plain words ("查阅第 12 页", "搜索：堆"), for the chips above an
// answer.
import type { ToolCall } from './api.ts';
import { t } from './i18n.ts';

const MAX_QUERY = 24;

function shorten(text: string): string {
  return text.length > MAX_QUERY ? `${text.slice(0, MAX_QUERY - 1)}…` : text;
}

/** `HH:MM` of a `HH:MM[:SS]` time (the chip has little room). */
function clock(value: unknown): string {
  return typeof value === 'string' ? value.replace(/^(\d{1,2}:\d{2}):\d{2}$/, '$1') : '';
}

/**
 * A lookup in plain words, in the UI's language.
 *
 * @example
 * toolCallText({ id: '1', name: 'material_page', arguments: { page: 12 } }); // '查阅第 12 页'
 */
export function toolCallText(call: ToolCall): string {
  const args = typeof call.arguments === 'object' && call.arguments ? call.arguments : {};
  const text = (key: string) => (typeof args[key] === 'string' ? (args[key] as string) : '');
  switch (call.name) {
    case 'material_page': {
      const page = typeof args.page === 'number' ? args.page : '?';
      return text('material')
        ? t('toolMaterialPageOf', { page, material: shorten(text('material')) })
        : t('toolMaterialPage', { page });
    }
    case 'class_search':
      return t('toolSearch', { query: shorten(text('query')) });
    case 'class_lines':
      return text('from') || text('to')
        ? t('toolLines', { from: clock(args.from) || '…', to: clock(args.to) || '…' })
        : t('toolLinesAround');
    case 'notes_read':
      return t('toolNotes');
    case 'class_list':
      return t('toolClasses');
    case 'class_file_read':
    case 'file_read':
      return t('toolFile', { path: shorten(text('path')) });
    default:
      return t('toolOther', { name: call.name });
  }
}
