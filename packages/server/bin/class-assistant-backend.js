#!/usr/bin/env node
// Inside the workspace the TypeScript source runs directly (Node >= 22.18 strips types);
// the published package ships only dist/.
import { existsSync, readFileSync } from 'node:fs';
import module from 'node:module';

// Checked before anything else is loaded, so an old Node.js gets a sentence, not a syntax error.
const { name, engines } = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
);
const needed = engines.node.replace(/^>=\s*/, '');
const newer = (have, want) => {
  const [a, b] = [have, want].map((version) => version.split('.').map(Number));
  for (let index = 0; index < 3; index++) {
    if ((a[index] ?? 0) !== (b[index] ?? 0)) return (a[index] ?? 0) > (b[index] ?? 0);
  }
  return true;
};
if (!newer(process.versions.node, needed)) {
  const have = process.versions.node;
  const english = `${name} needs Node.js ${needed} or newer; this is Node.js ${have}. Install a current LTS from https://nodejs.org and run it again.`;
  process.stderr.write(`${english}\n`);
  const mcp = process.argv[2] === 'mcp' && process.argv[3] !== 'token';
  const help = process.argv.includes('--help') || process.argv.includes('-h');
  if (mcp && !help && !process.stdin.isTTY) {
    // An MCP client that started this process shows what it answers, not its stderr: the
    // requests it sends on stdin (JSON-RPC, one per line) get the requirement as their error,
    // in the language of the locale (LC_ALL, LC_MESSAGES, LANG), in both when it names neither.
    const chinese = `${name} 需要 Node.js ${needed} 或更新的版本，当前是 Node.js ${have}。请从 https://nodejs.org 安装最新的 LTS 版本后再运行。`;
    const locale = (
      process.env.LC_ALL ||
      process.env.LC_MESSAGES ||
      process.env.LANG ||
      ''
    ).toLowerCase();
    const zh = locale.startsWith('zh');
    const en = locale.startsWith('en');
    await answerMcpRequests(zh ? chinese : en ? english : `${english}\n${chinese}`);
  }
  process.exit(1);
}

/** Answers each request read on stdin with `message` as a JSON-RPC error, then resolves. */
function answerMcpRequests(message) {
  return new Promise((resolve) => {
    let buffered = '';
    process.stdin.setEncoding('utf8');
    process.stdin.on('data', (chunk) => {
      buffered += chunk;
      let end = buffered.indexOf('\n');
      while (end !== -1) {
        const line = buffered.slice(0, end).trim();
        buffered = buffered.slice(end + 1);
        end = buffered.indexOf('\n');
        let request;
        try {
          request = JSON.parse(line);
        } catch {
          continue;
        }
        // Notifications (no id) get no answer; the first request ends the process.
        if (request === null || typeof request !== 'object' || request.id === undefined) continue;
        const answer = { jsonrpc: '2.0', id: request.id, error: { code: -32000, message } };
        process.stdout.write(`${JSON.stringify(answer)}\n`, () => resolve());
        return;
      }
    });
    process.stdin.on('end', () => resolve());
  });
}

// Node keeps the code it compiles for the backend's modules in its compile cache (in the temp
// folder, or NODE_COMPILE_CACHE), so a later start skips most of the compiling; it checks each
// entry against the file's source, and NODE_DISABLE_COMPILE_CACHE=1 turns it off.
module.enableCompileCache();

const source = new URL('../src/main.ts', import.meta.url);
await import(existsSync(source) ? source.href : new URL('../dist/main.js', import.meta.url).href);
