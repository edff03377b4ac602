// Preloaded with `--import` (NODE_OPTIONS) into a backend process: appends the URL of every
// module the process (and its worker threads) loads to the file named by MODULE_LOG_FILE, one a
// line, so a test or benchmark can see what the backend loaded and when.
import { appendFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const file = process.env.MODULE_LOG_FILE;
if (file) {
  registerHooks({
    load(url, context, nextLoad) {
      appendFileSync(file, `${url}\n`);
      return nextLoad(url, context);
    },
  });
}
