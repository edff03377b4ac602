// A server-sent-events reader over fetch: the live stream (/api/events) and the streamed AI answers
// (POST …/stream, which EventSource cannot send) share it. Unlike EventSource it also reports the
// server's `: heartbeat` comments, so a silent, half-dead connection can be noticed.

/** One dispatched event. */
export interface SseMessage {
  event: string;
  data: string;
  /** The `id:` field, when the event carried one. */
  id?: string;
}

/**
 * An incremental parser of the `text/event-stream` format (WHATWG HTML, "Parsing an event
 * stream"): feed it text in any chunks; it calls back for each complete event and comment.
 *
 * @example
 * const feed = createSseParser((message) => console.log(message.event, message.data));
 * feed('event: line.appended\ndata: {"index":0}\n\n');
 */
export function createSseParser(
  onMessage: (message: SseMessage) => void,
  onComment: (text: string) => void = () => {},
): (chunk: string) => void {
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let id: string | undefined;
  let pendingCarriageReturn = false;

  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) {
        const message: SseMessage = { event: event || 'message', data: data.join('\n') };
        if (id !== undefined) message.id = id;
        onMessage(message);
      }
      event = '';
      data = [];
      id = undefined;
      return;
    }
    if (text.startsWith(':')) {
      onComment(text.slice(1).trimStart());
      return;
    }
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) id = value;
  };

  return (chunk) => {
    let text = chunk;
    // A CRLF split across two chunks: the LF belongs to the line the CR already ended.
    if (pendingCarriageReturn && text.startsWith('\n')) text = text.slice(1);
    pendingCarriageReturn = false;
    buffer += text;
    let start = 0;
    for (let index = 0; index < buffer.length; index++) {
      const character = buffer[index];
      if (character !== '\n' && character !== '\r') continue;
      line(buffer.slice(start, index));
      if (character === '\r') {
        if (index + 1 === buffer.length) pendingCarriageReturn = true;
        else if (buffer[index + 1] === '\n') index++;
      }
      start = index + 1;
    }
    buffer = buffer.slice(start);
  };
}

/**
 * Reads a fetch response body as an event stream until it ends or `signal` aborts. Resolves when
 * the server closes the stream; rejects on a network error or abort.
 */
export async function readEventStream(
  response: Response,
  onMessage: (message: SseMessage) => void,
  onComment?: (text: string) => void,
): Promise<void> {
  if (!response.body) return;
  const feed = createSseParser(onMessage, onComment);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    feed(value);
  }
}
