// Baseline for the HTTP figures: the smallest possible node:http server answering JSON.
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 0);
const body = JSON.stringify({ status: 'healthy' });
createServer((_request, response) => {
  response.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  });
  response.end(body);
}).listen(port, '127.0.0.1');
