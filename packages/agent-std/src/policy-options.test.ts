import { describe, expect, test } from 'vitest';
import { isToolError } from './errors.ts';
import { resolveToolPolicy } from './policy.ts';
import { POLICY_OPTIONS, type PolicyOption, renamePolicyOptions } from './policy-options.ts';
import { createToolbox } from './toolbox.ts';

const flags: Partial<Record<PolicyOption, string>> = {
  'policy.http.allowPrivateNetwork': 'the --allow-private-network flag',
  'policy.shell.unsandboxed': 'the --unsandboxed-shell flag',
};
const describeOption = (option: PolicyOption) => flags[option];

describe('policy options in messages', () => {
  test('every option of ToolPolicy is listed once', () => {
    expect(new Set(POLICY_OPTIONS).size).toBe(POLICY_OPTIONS.length);
    expect(POLICY_OPTIONS).toContain('policy.fs.readOnly');
    expect(POLICY_OPTIONS).toContain('policy.shell.unsandboxed');
  });

  test('renamePolicyOptions replaces the options it has words for, and only those', () => {
    expect(
      renamePolicyOptions(
        'a loopback address; set policy.http.allowPrivateNetwork to reach it (policy.http.maxRedirects)',
        describeOption,
      ),
    ).toBe(
      'a loopback address; set the --allow-private-network flag to reach it (policy.http.maxRedirects)',
    );
    expect(
      renamePolicyOptions('Set policy.shell.unsandboxed: true to run without one.', describeOption),
    ).toBe('Set the --unsandboxed-shell flag to run without one.');
    // Not an option: left alone.
    expect(renamePolicyOptions('see policy.http.nothing', () => 'X')).toBe(
      'see policy.http.nothing',
    );
  });

  test('a toolbox with describePolicyOption names options in its caller’s words', async () => {
    const library = createToolbox({
      uses: ['std.http'],
      policy: { http: { resolve: async () => ['127.0.0.1'] } },
    });
    const cli = createToolbox({
      uses: ['std.http'],
      policy: { http: { resolve: async () => ['127.0.0.1'] } },
      describePolicyOption: describeOption,
    });
    const args = '{"url": "http://intranet.example/"}';
    const fromLibrary = await library.callForModel('http_get', args);
    const fromCli = await cli.callForModel('http_get', args);
    expect(fromLibrary.content).toBe(
      'Error [TOOL_POLICY_DENIED] http_get: host "intranet.example" resolves to 127.0.0.1, a loopback address; set policy.http.allowPrivateNetwork to reach it',
    );
    expect(fromCli.content).toBe(
      'Error [TOOL_POLICY_DENIED] http_get: host "intranet.example" resolves to 127.0.0.1, a loopback address; set the --allow-private-network flag to reach it',
    );
    // The code and the field stay the library's.
    expect(!fromCli.ok && [fromCli.error.code, fromCli.error.field]).toEqual(
      !fromLibrary.ok && [fromLibrary.error.code, fromLibrary.error.field],
    );
  });
});

describe('policy.fs.readOnly', () => {
  test('is off by default and must be a boolean', () => {
    expect(resolveToolPolicy().fs.readOnly).toBe(false);
    let caught: unknown;
    try {
      resolveToolPolicy({ fs: { readOnly: 'yes' as unknown as boolean } });
    } catch (error) {
      caught = error;
    }
    expect(isToolError(caught) && [caught.code, caught.field]).toEqual([
      'TOOL_BAD_POLICY',
      'policy.fs.readOnly',
    ]);
  });

  test('cannot be combined with an enabled unsandboxed shell, which could write anyway', () => {
    expect(() =>
      resolveToolPolicy({ fs: { readOnly: true }, shell: { enabled: true, unsandboxed: true } }),
    ).toThrow(/policy\.fs\.readOnly cannot be kept by an unsandboxed shell/);
    // With the shell off the combination does no harm.
    expect(
      resolveToolPolicy({ fs: { readOnly: true }, shell: { unsandboxed: true } }).fs.readOnly,
    ).toBe(true);
  });
});
