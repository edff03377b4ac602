import { describe, expect, it } from 'vitest';
import { describeServiceCode, isRetryableServiceCode } from './service-codes.ts';

describe('describeServiceCode', () => {
  it('gives the meaning from the protocol table, a family, or unknown', () => {
    expect(describeServiceCode(55000031)).toBe('server busy');
    expect(describeServiceCode(55000999)).toBe('internal service error');
    expect(describeServiceCode(12345)).toBe('unknown service code');
    expect(isRetryableServiceCode(45000081)).toBe(true);
  });

  it('never answers with something inherited from Object.prototype', () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(describeServiceCode(name as unknown as number)).toBe('unknown service code');
    }
  });
});
