// Fetches https://<host>:<port>/ through http_get with the host pinned to 127.0.0.1, and prints
// the model-facing reply as JSON. Run by https.test.ts with NODE_EXTRA_CA_CERTS set.
import { createToolbox } from '../../src/index.ts';

const [host, port] = process.argv.slice(2);
const toolbox = createToolbox({
  uses: ['std.http'],
  policy: { http: { allowPrivateNetwork: ['127.0.0.1'], resolve: async () => ['127.0.0.1'] } },
});
const reply = await toolbox.callForModel('http_get', {
  url: `https://${host}:${port}/hello`,
  timeout: 20,
});
process.stdout.write(JSON.stringify({ ok: reply.ok, content: reply.content }));
