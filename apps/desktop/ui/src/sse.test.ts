import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { createSseParser, type SseMessage } from './sse.ts';

function parseAll(chunks: string[]): { messages: SseMessage[]; comments: string[] } {
  const messages: SseMessage[] = [];
  const comments: string[] = [];
  const feed = createSseParser(
    (message) => messages.push(message),
    (comment) => comments.push(comment),
  );
  for (const chunk of chunks) feed(chunk);
  return { messages, comments };
}

const STREAM =
  'retry: 2000\n\n' +
  'event: stream.opened\ndata: {"last_event_id":3}\n\n' +
  ': heartbeat\n\n' +
  'id: 4\nevent: line.appended\ndata: {"index":0,\ndata: "text":"好"}\n\n' +
  'data: no event name\n\n';

describe('createSseParser', () => {
  it('reads events, ids, multi-line data and heartbeat comments', () => {
    const { messages, comments } = parseAll([STREAM]);
    expect(messages).toEqual([
      { event: 'stream.opened', data: '{"last_event_id":3}' },
      { event: 'line.appended', data: '{"index":0,\n"text":"好"}', id: '4' },
      { event: 'message', data: 'no event name' },
    ]);
    expect(comments).toEqual(['heartbeat']);
  });

  it('accepts CRLF and CR line endings, also split between chunks', () => {
    const crlf = STREAM.replaceAll('\n', '\r\n');
    expect(parseAll([crlf]).messages).toHaveLength(3);
    const cr = STREAM.replaceAll('\n', '\r');
    expect(parseAll([cr]).messages).toHaveLength(3);
    const cut = crlf.indexOf('\r\n') + 1;
    expect(parseAll([crlf.slice(0, cut), crlf.slice(cut)])).toEqual(parseAll([crlf]));
  });

  test.prop([fc.array(fc.integer({ min: 0, max: STREAM.length }), { maxLength: 8 })])(
    'gives the same events however the stream is cut into chunks',
    (cuts) => {
      const points = [...new Set(cuts)].sort((a, b) => a - b);
      const chunks: string[] = [];
      let start = 0;
      for (const point of points) {
        chunks.push(STREAM.slice(start, point));
        start = point;
      }
      chunks.push(STREAM.slice(start));
      expect(parseAll(chunks)).toEqual(parseAll([STREAM]));
    },
  );

  it('holds back an event until its blank line arrives', () => {
    const { messages } = parseAll(['event: partial.changed\ndata: {"text":"半"}\n']);
    expect(messages).toEqual([]);
  });
});
