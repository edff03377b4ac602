// The settings panel's MCP group: the address other AI clients use to search the student's
// lectures (read-only), where their token is kept and the command that prints it (copied with one
// click), and the command for clients that start a process. The token itself never comes over
// HTTP: every user of the computer can reach the backend's port.
import type { RestAnswer } from '@class-assistant/server/rest-contract';
import { useEffect, useState } from 'preact/hooks';
import { call } from '../api.ts';
import { t } from '../i18n.ts';

/** GET /api/mcp/connection. */
type McpConnection = RestAnswer<'GET /api/mcp/connection'>;

/** A shell word, quoted when it needs to be. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `"${word.replace(/(["\\$`])/g, '\\$1')}"`;
}

/** A command line of shell words. */
function commandLine({ command, args }: { command: string; args: string[] }): string {
  return [command, ...args].map(shellWord).join(' ');
}

/** The group; read again each time the settings panel becomes `active`. */
export function McpConnection({ active }: { active: boolean }) {
  const [connection, setConnection] = useState<McpConnection | null>(null);
  const [copied, setCopied] = useState('');
  useEffect(() => {
    if (!active) return;
    call('GET /api/mcp/connection').then(setConnection, () =>
      // The backend is offline or older: the group says nothing rather than something stale.
      setConnection(null),
    );
  }, [active]);
  const command = connection ? commandLine(connection.token_command) : '';
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(command);
      setCopied(t('mcpCopied'));
    } catch {
      setCopied(t('mcpCopyFailed'));
    }
  };
  return (
    <details class="settings-group mcp" id="settings-mcp">
      <summary>{t('mcpTitle')}</summary>
      <p class="setting-help">{t('mcpIntro')}</p>
      <div class="mcp-body">
        {connection ? (
          <>
            <span class="setting-label">{t('mcpAddress')}</span>
            <code class="mcp-url">{connection.url}</code>
            <span class="setting-label">{t('mcpTokenFile')}</span>
            <code class="mcp-token-file">{connection.token_file}</code>
            <span class="setting-label">{t('mcpTokenCommand')}</span>
            <div class="mcp-token-row">
              <code class="mcp-token-command">{command}</code>
              <button type="button" class="button small primary mcp-copy" onClick={copy}>
                {t('mcpCopy')}
              </button>
            </div>
            <span class="mcp-copied" role="status">
              {copied}
            </span>
            <p class="setting-help">{t('mcpStdio')}</p>
            <code class="mcp-stdio">{commandLine(connection.stdio)}</code>
          </>
        ) : null}
      </div>
    </details>
  );
}
