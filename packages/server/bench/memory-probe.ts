// Loaded into a benchmarked backend with `node --expose-gc --import <this file>`: on a message
// from its parent (IPC), collects garbage twice and answers with the process's memory.
const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('bench/memory-probe.ts needs node --expose-gc');

process.on('message', (message) => {
  if (message !== 'memory') return;
  collect();
  collect();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  process.send?.({ rss, heapUsed, heapTotal, external });
});
// The channel must not keep a stopped backend alive.
process.channel?.unref();
