// Child process of test/crash-safety.test.ts: writes to a transcript as fast as it can and
// acknowledges on stdout each change once its promise resolved (i.e. once it is durable), until
// the parent kills it with SIGKILL.
//
//   node crash-writer.ts append  <path>   append line i, print "ack i"
//   node crash-writer.ts replace <path>   append base i ("a i"), replaceLast long i ("l i"),
//                                         replaceLast short i ("s i")
//   node crash-writer.ts fold    <path>   append lines ("ack i"); every 20 lines fold all but
//                                         the last 5 into a large summary that quotes every
//                                         folded line ("fold-start n", "fold-done n <ms>")
import { TranscriptStore } from '../../src/transcript-store.ts';
import { crashLine } from './crash-lines.ts';

const [mode, path] = process.argv.slice(2);
if (!path || (mode !== 'append' && mode !== 'replace' && mode !== 'fold')) {
  process.stderr.write('usage: crash-writer.ts append|replace|fold <path>\n');
  process.exit(2);
}

const store = await TranscriptStore.open(path);
const say = (message: string) => process.stdout.write(`${message}\n`);
say('ready');

// A filler paragraph that makes each fold write about 20 MB: writing it dominates the fold's
// time, so that a kill at a random moment of the fold lands inside the write.
const filler =
  '本段是摘要的填充内容，用来让折叠写入足够大。Padding so the fold write takes a while. '
    .repeat(150_000)
    .trim();

for (let index = 0; ; index += 1) {
  if (mode === 'append') {
    await store.append(crashLine(index, 'base'));
    say(`ack ${index}`);
  } else if (mode === 'replace') {
    await store.append(crashLine(index, 'base'));
    say(`a ${index}`);
    await store.replaceLast(crashLine(index, 'long'));
    say(`l ${index}`);
    await store.replaceLast(crashLine(index, 'short'));
    say(`s ${index}`);
  } else {
    await store.append(crashLine(index, 'base'));
    say(`ack ${index}`);
    if ((index + 1) % 20 === 0) {
      const document = await store.read();
      const folded = document.entries.slice(0, -5);
      // The previous summary's quoted lines (not its filler) plus the newly folded lines.
      const quoted = document.summary.split('\n').filter((line) => line !== '' && line !== filler);
      const summary = [...quoted, ...folded.map((entry) => entry.text)].join('\n');
      const fold = (index + 1) / 20;
      say(`fold-start ${fold}`);
      const started = performance.now();
      await store.fold({ summary: `${summary}\n${filler}`, entries: folded });
      say(`fold-done ${fold} ${Math.round(performance.now() - started)}`);
    }
  }
}
