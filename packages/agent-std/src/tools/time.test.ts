import { afterEach, describe, expect, test, vi } from 'vitest';
import { systemTimeZone } from '../policy.ts';
import { createToolbox } from '../toolbox.ts';

const at = (iso: string) => () => Date.parse(iso);
const time = (timezone: string, now = at('2024-05-01T01:02:03.456Z'), maxSleepSeconds?: number) =>
  createToolbox({
    uses: ['std.time'],
    policy: { time: { timezone, now, ...(maxSleepSeconds ? { maxSleepSeconds } : {}) } },
  });

afterEach(() => {
  vi.useRealTimers();
});

describe('time_now and time_timestamp', () => {
  test('format in the policy time zone, default format %Y-%m-%d %H:%M:%S', async () => {
    expect(await time('Asia/Shanghai').call('time_now', {})).toBe('2024-05-01 09:02:03');
    expect(await time('America/New_York').call('time_now', {})).toBe('2024-04-30 21:02:03');
    expect(
      await time('Asia/Kolkata').call('time_now', {
        format: '%a %d %b %Y %I:%M:%S.%f %p %z %Z %j %%',
      }),
    ).toBe('Wed 01 May 2024 06:32:03.456000 AM +0530 Asia/Kolkata 122 %');
  });

  test('%f shows microseconds: of the ISO string as written, of a clock finer than 1 ms', async () => {
    const utc = time('UTC', () => Date.parse('2024-05-01T01:02:03.456Z') + 0.789);
    expect(await utc.call('time_now', { format: '%S.%f' })).toBe('03.456789');
    for (const [iso, shown] of [
      ['2024-05-01T09:30:15.123456+08:00', '15.123456'],
      ['2024-05-01T09:30:15.000001Z', '15.000001'],
      ['2024-05-01T09:30:15.1234567', '15.123456'],
      ['2024-05-01T09:30:15.5', '15.500000'],
    ] as const) {
      expect(await utc.call('time_format', { iso_string: iso, format: '%S.%f' }), iso).toBe(shown);
    }
  });

  test('unknown directives are refused naming the directive', async () => {
    await expect(time('UTC').call('time_now', { format: '%Y-%q' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'format',
      message: expect.stringContaining('"%q"'),
    });
    await expect(time('UTC').call('time_now', { format: '100%' })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
    });
  });

  test('time_timestamp is whole Unix seconds', async () => {
    expect(await time('UTC').call('time_timestamp', {})).toEqual({ timestamp: 1714525323 });
  });

  test('the default zone is the system zone; an invalid zone is a policy error', () => {
    expect(createToolbox({ uses: ['std.time'] }).policy.time.timezone).toBe(systemTimeZone());
    expect(() => time('Mars/Olympus_Mons')).toThrow(
      expect.objectContaining({ code: 'TOOL_BAD_POLICY', field: 'policy.time.timezone' }),
    );
  });
});

describe('time_diff', () => {
  test('the record: value in the unit, unit, whole days, seconds', async () => {
    expect(
      await time('UTC').call('time_diff', {
        start: '2024-05-01T00:00:00Z',
        end: '2024-05-03T06:00:00Z',
        unit: 'hours',
      }),
    ).toEqual({ value: 54, unit: 'hours', days: 2, seconds: 194400 });
    expect(
      await time('UTC').call('time_diff', { start: '2024-05-03', end: '2024-05-01T12:00' }),
    ).toEqual({ value: -129600, unit: 'seconds', days: -1, seconds: -129600 });
    expect(
      (
        await time('UTC').call('time_diff', {
          start: '2024-01-01',
          end: '2024-01-02T06:00',
          unit: 'days',
        })
      ).value,
    ).toBe(1.25);
  });

  test('microseconds count', async () => {
    expect(
      await time('UTC').call('time_diff', {
        start: '2024-05-01T00:00:00.000001Z',
        end: '2024-05-01T00:00:00.000003Z',
      }),
    ).toEqual({ value: 0.000002, unit: 'seconds', days: 0, seconds: 0.000002 });
    expect(
      await time('Asia/Shanghai').call('time_diff', {
        start: '2024-05-01T23:59:59.999999',
        end: '2024-05-02T00:00:00.5',
        unit: 'minutes',
      }),
    ).toMatchObject({ seconds: 0.500001, value: 0.500001 / 60, days: 0 });
  });

  test('strings without an offset are read in the policy zone, across DST changes', async () => {
    // New York springs forward on 2024-03-10: midnight to noon is 11 real hours.
    expect(
      await time('America/New_York').call('time_diff', {
        start: '2024-03-10T00:00:00',
        end: '2024-03-10T12:00:00',
        unit: 'hours',
      }),
    ).toMatchObject({ value: 11 });
    // An explicit offset wins over the zone.
    expect(
      await time('Asia/Shanghai').call('time_diff', {
        start: '2024-05-01T08:00:00',
        end: '2024-05-01T00:00:00Z',
      }),
    ).toMatchObject({ seconds: 0 });
  });

  test('invalid dates and units are bad input naming the field', async () => {
    await expect(
      time('UTC').call('time_diff', { start: '2024-02-30T00:00:00', end: '2024-03-01' }),
    ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'start' });
    await expect(
      time('UTC').call('time_diff', { start: '2024-01-01', end: 'yesterday' }),
    ).rejects.toMatchObject({ code: 'TOOL_BAD_INPUT', field: 'end' });
    await expect(
      time('UTC').callForModel('time_diff', {
        start: '2024-01-01',
        end: '2024-01-02',
        unit: 'weeks',
      }),
    ).resolves.toMatchObject({ ok: false, error: { code: 'TOOL_BAD_INPUT', field: 'unit' } });
  });
});

describe('time_format', () => {
  test('formats the date and time as written; %z shows its offset', async () => {
    const box = time('Asia/Shanghai');
    expect(
      await box.call('time_format', {
        iso_string: '2024-05-01T10:00:00+02:00',
        format: '%d/%m/%Y %H:%M %z %Z',
      }),
    ).toBe('01/05/2024 10:00 +0200 UTC+02:00');
    expect(await box.call('time_format', { iso_string: '2024-12-25T18:30:05' })).toBe(
      '2024-12-25 18:30:05',
    );
    expect(
      await box.call('time_format', { iso_string: '2024-12-25 18:30', format: '%A %B %z' }),
    ).toBe('Wednesday December +0800');
  });

  test('DST gaps and repeats follow the documented rule', async () => {
    const box = time('America/New_York');
    // 02:30 does not exist on 2024-03-10: it is read as 03:30 EDT, i.e. 07:30Z.
    expect(
      await box.call('time_diff', { start: '2024-03-10T02:30:00', end: '2024-03-10T07:30:00Z' }),
    ).toMatchObject({ seconds: 0 });
    // 01:30 happens twice on 2024-11-03: the earlier one (EDT, -04:00) is taken.
    expect(
      await box.call('time_diff', { start: '2024-11-03T01:30:00', end: '2024-11-03T05:30:00Z' }),
    ).toMatchObject({ seconds: 0 });
    expect(await box.call('time_format', { iso_string: '2024-11-03T01:30:00', format: '%z' })).toBe(
      '-0400',
    );
  });

  test('impossible times are refused', async () => {
    for (const iso_string of ['2024-13-01', '2023-02-29', '2024-05-01T24:00', '2024-05-01T10:61']) {
      await expect(time('UTC').call('time_format', { iso_string })).rejects.toMatchObject({
        code: 'TOOL_BAD_INPUT',
        field: 'iso_string',
      });
    }
  });
});

describe('time_sleep', () => {
  test('sleeps the given seconds and reports them', async () => {
    vi.useFakeTimers();
    const pending = time('UTC').call('time_sleep', { seconds: 30 });
    await vi.advanceTimersByTimeAsync(29_999);
    let done = false;
    void pending.then(() => {
      done = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await pending).toEqual({ sleep: 30 });
  });

  test('longer than the policy allows is refused; negative is bad input; abort stops it', async () => {
    await expect(
      time('UTC', undefined, 5).call('time_sleep', { seconds: 6 }),
    ).rejects.toMatchObject({
      code: 'TOOL_POLICY_DENIED',
      field: 'seconds',
    });
    await expect(time('UTC').call('time_sleep', { seconds: -1 })).rejects.toMatchObject({
      code: 'TOOL_BAD_INPUT',
      field: 'seconds',
    });
    const controller = new AbortController();
    const pending = time('UTC').call('time_sleep', { seconds: 50 }, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'TOOL_ABORTED' });
  });
});
