import { describe, expect, it } from 'vitest';
import { routeUrl } from './api.ts';

describe('routeUrl', () => {
  it('takes the method from the route and fills in its path parameters, encoded', () => {
    expect(
      routeUrl('GET /api/notes/:filename', { params: { filename: '数据结构 #1?.md' } }),
    ).toEqual({
      method: 'GET',
      url: '/api/notes/%E6%95%B0%E6%8D%AE%E7%BB%93%E6%9E%84%20%231%3F.md',
    });
    expect(routeUrl('DELETE /api/classes/:id', { params: { id: '20261123-101500-k3f9' } })).toEqual(
      { method: 'DELETE', url: '/api/classes/20261123-101500-k3f9' },
    );
  });

  it('adds the query, encoded, leaving out what is not given', () => {
    expect(
      routeUrl('GET /api/search', { query: { q: 'a&b=c 矩阵', limit: 50, course: undefined } }),
    ).toEqual({ method: 'GET', url: '/api/search?q=a%26b%3Dc%20%E7%9F%A9%E9%98%B5&limit=50' });
    expect(routeUrl('POST /api/stop_monitor', { query: {} })).toEqual({
      method: 'POST',
      url: '/api/stop_monitor',
    });
  });
});
