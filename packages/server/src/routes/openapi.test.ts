import { describe, expect, it } from 'vitest';
import { operationIdOf, serverEntry } from './openapi.ts';

describe('the OpenAPI additions', () => {
  it('name operations by method and path, parameters as By<Name>', () => {
    expect(operationIdOf('GET', '/api/health')).toBe('getHealth');
    expect(operationIdOf('POST', '/api/start_monitor')).toBe('postStartMonitor');
    expect(operationIdOf('GET', '/api/classes/:id/export')).toBe('getClassesByIdExport');
    expect(operationIdOf('DELETE', '/api/models/{name}')).toBe('deleteModelsByName');
    expect(operationIdOf('POST', '/api/emergency_rescue/stream')).toBe('postEmergencyRescueStream');
    expect(operationIdOf('GET', '/')).toBe('get');
  });

  it('give the listening address, IPv6 in brackets', () => {
    expect(serverEntry({ host: '127.0.0.1', port: 18765 })).toEqual({
      url: 'http://127.0.0.1:18765',
    });
    expect(serverEntry({ host: '::1', port: 8765 })).toEqual({ url: 'http://[::1]:8765' });
  });
});
