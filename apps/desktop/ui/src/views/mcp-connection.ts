// The settings panel's MCP group: the address and token other AI clients use to search the
// student's lectures (read-only), the token hidden until asked for and copied with one click,
// and the command for clients that start a process.
import { api } from '../api.ts';
import { h, replaceChildren } from '../dom.ts';
import { t } from '../i18n.ts';

/** GET /api/mcp/connection. */
interface McpConnection {
  url: string;
  token: string;
  stdio: { command: string; args: string[] };
}

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
    const token = h('input', {
      class: 'input mcp-token',
      type: 'password',
      readOnly: true,
      value: connection.token,
      'aria-label': t('mcpToken'),
    });
    const reveal = h('button', { class: 'button small' }, t('mcpShow'));
    reveal.addEventListener('click', () => {
      const hidden = token.type === 'password';
      token.type = hidden ? 'text' : 'password';
      reveal.textContent = hidden ? t('mcpHide') : t('mcpShow');
    });
    const copied = h('span', { class: 'mcp-copied', role: 'status' });
    const copy = h('button', { class: 'button small primary mcp-copy' }, t('mcpCopy'));
    copy.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(connection.token);
        copied.textContent = t('mcpCopied');
      } catch {
        copied.textContent = t('mcpCopyFailed');
      }
    });
    replaceChildren(
      body,
      h('label', { class: 'setting-label' }, t('mcpAddress')),
      h('code', { class: 'mcp-url' }, connection.url),
      h('label', { class: 'setting-label' }, t('mcpToken')),
      h('div', { class: 'mcp-token-row' }, token, reveal, copy),
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
        show(await api<McpConnection>('/api/mcp/connection'));
      } catch {
        // The backend is offline or older: the group says nothing rather than something stale.
        replaceChildren(body);
      }
    },
  };
}
