// The settings panel's MCP group: the address other AI clients use to search the student's
// lectures (read-only), where their token is kept and the command that prints it (copied with one
// click), and the command for clients that start a process. The token itself never comes over
// HTTP: every user of the computer can reach the backend's port.
import type { RestAnswer } from '@class-assistant/server/rest-contract';
import { call } from '../api.ts';
import { h, replaceChildren } from '../dom.ts';
import { t } from '../i18n.ts';

/** GET /api/mcp/connection. */
type McpConnection = RestAnswer<'GET /api/mcp/connection'>;

/** A shell word, quoted when it needs to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `"${word.replace(/(["\\$`])/g, '\\$1')}"`;
}

/** Creates the group; `load()` each time the settings panel opens. */
export function createMcpConnection(): { element: HTMLElement; load(): Promise<void> } {
  const body = h('div', { class: 'mcp-body' });
  const element = h(
    'details',
    { class: 'settings-group mcp', id: 'settings-mcp' },
    h('summary', null, t('mcpTitle')),
    h('p', { class: 'setting-help' }, t('mcpIntro')),
    body,
  );
  const show = (connection: McpConnection) => {
    const command = [connection.token_command.command, ...connection.token_command.args]
      .map(shellWord)
      .join(' ');
    const copied = h('span', { class: 'mcp-copied', role: 'status' });
    const copy = h('button', { class: 'button small primary mcp-copy' }, t('mcpCopy'));
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(command);
        copied.textContent = t('mcpCopied');
      } catch {
        copied.textContent = t('mcpCopyFailed');
      }
    });
    replaceChildren(
      body,
      h('label', { class: 'setting-label' }, t('mcpAddress')),
      h('code', { class: 'mcp-url' }, connection.url),
      h('label', { class: 'setting-label' }, t('mcpTokenFile')),
      h('code', { class: 'mcp-token-file' }, connection.token_file),
      h('label', { class: 'setting-label' }, t('mcpTokenCommand')),
      h(
        'div',
        { class: 'mcp-token-row' },
        h('code', { class: 'mcp-token-command' }, command),
        copy,
      ),
      copied,
      h('p', { class: 'setting-help' }, t('mcpStdio')),
      h(
        'code',
        { class: 'mcp-stdio' },
        [connection.stdio.command, ...connection.stdio.args].map(shellWord).join(' '),
      ),
    );
  };
  return {
    element,
    async load() {
      try {
        show(await call('GET /api/mcp/connection'));
      } catch {
        // The backend is offline or older: the group says nothing rather than something stale.
        replaceChildren(body);
      }
    },
  };
}
