import { describe, expect, it } from 'vitest';
import { addressProblemOf, technicalText } from './connection-result.ts';

/** An error as Node's sockets raise them: a message and a `code`. */
const socketError = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('addressProblemOf', () => {
  it('reads the socket code anywhere in the chain of causes', () => {
    const dns = new TypeError('fetch failed', {
      cause: socketError('getaddrinfo ENOTFOUND api.example.invalid', 'ENOTFOUND'),
    });
    expect(addressProblemOf(new Error('Connection error.', { cause: dns }))).toBe('dns');
    expect(addressProblemOf(socketError('getaddrinfo EAI_AGAIN host', 'EAI_AGAIN'))).toBe('dns');
    expect(addressProblemOf(socketError('connect ECONNREFUSED 127.0.0.1:9', 'ECONNREFUSED'))).toBe(
      'refused',
    );
    expect(
      addressProblemOf(
        socketError('unable to verify the first certificate', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'),
      ),
    ).toBe('tls');
  });

  it('reads the code from the message when a client kept only that', () => {
    expect(addressProblemOf(new Error('connect ECONNREFUSED 127.0.0.1:9'))).toBe('refused');
    expect(addressProblemOf(new Error('getaddrinfo ENOTFOUND host'))).toBe('dns');
    expect(addressProblemOf(new Error('something else'))).toBe('other');
  });
});

describe('technicalText', () => {
  it('joins the chain of causes, each once, with its code', () => {
    const error = new Error('Connection error.', {
      cause: new TypeError('fetch failed', {
        cause: socketError('getaddrinfo ENOTFOUND h.invalid', 'ENOTFOUND'),
      }),
    });
    expect(technicalText(error)).toBe(
      'Connection error. ← fetch failed ← getaddrinfo ENOTFOUND h.invalid',
    );
  });
});
