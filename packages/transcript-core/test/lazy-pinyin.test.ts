// pinyin-pro is most of this package's weight: a process that imports the package, or matches
// keywords with homophones off, must not load it; homophones load it (asynchronously with
// loadHomophoneSupport, or synchronously on the first matcher that needs it).
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const index = fileURLToPath(new URL('../src/index.ts', import.meta.url));

// Runs `body` in a fresh Node process with the package imported as `core`; prints whether
// pinyin-pro was loaded (any module whose path names it) and what the body printed.
async function inFreshProcess(body: string): Promise<{ loaded: boolean; output: string }> {
  const script = `
    import { registerHooks } from 'node:module';
    const loaded = [];
    registerHooks({ load(url, context, next) { loaded.push(url); return next(url, context); } });
    const core = await import(${JSON.stringify(index)});
    const output = await (async () => { ${body} })();
    console.log(JSON.stringify({ loaded: loaded.some((url) => url.includes('pinyin-pro')), output }));
  `;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--input-type=module', '-e', script],
    { timeout: 30_000 },
  );
  return JSON.parse(stdout);
}

describe('pinyin-pro is loaded only for homophones', () => {
  it('is not loaded by importing the package or matching exact keywords', async () => {
    const result = await inFreshProcess(`
      const matcher = core.createKeywordMatcher(['张三', 'Tom']);
      return matcher.match('张三和章三, Tom').map((match) => match.keyword).join(',') +
        ' ' + core.isHomophoneSupportLoaded();
    `);
    expect(result).toEqual({ loaded: false, output: '张三,Tom false' });
  });

  it('is loaded by loadHomophoneSupport, and homophones then match', async () => {
    const result = await inFreshProcess(`
      await core.loadHomophoneSupport();
      const ready = core.isHomophoneSupportLoaded();
      const matcher = core.createKeywordMatcher(['张三'], { homophones: 'pinyin' });
      return ready + ' ' + matcher.match('章三你来回答')[0].matchedText;
    `);
    expect(result).toEqual({ loaded: true, output: 'true 章三' });
  });

  it('is loaded synchronously by the first matcher with homophones when not loaded before', async () => {
    const result = await inFreshProcess(`
      const matcher = core.createKeywordMatcher(['张三'], { homophones: 'fuzzy-pinyin' });
      return matcher.match('张珊你来回答')[0].matchedText;
    `);
    expect(result).toEqual({ loaded: true, output: '张珊' });
  });
});
