/** A calendar date and wall-clock time, without a zone. */
export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0-999 999. */
  microsecond: number;
}

/** A parsed ISO string: its wall time and, when the string carries one, its UTC offset in minutes. */
export interface ParsedIso {
  wall: WallTime;
  offsetMinutes: number | undefined;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/**
 * The wall time in `zone` at instant `epochMs`; a fractional `epochMs` (a clock finer than
 * milliseconds) keeps its microseconds.
 */
export function wallTimeIn(epochMs: number, zone: string): WallTime {
  const parts: Record<string, string> = {};
  const second = Math.floor(epochMs / 1000) * 1000;
  for (const part of formatterFor(zone).formatToParts(second)) parts[part.type] = part.value;
  const yearOfEra = Number(parts.year);
  const year = parts.era === 'BC' || parts.era === 'B' ? 1 - yearOfEra : yearOfEra;
  return {
    year,
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
    microsecond: Math.min(Math.round((epochMs - second) * 1000), 999_999),
  };
}

function wallToUtcMs(wall: WallTime): number {
  const date = new Date(0);
  date.setUTCFullYear(wall.year, wall.month - 1, wall.day);
  date.setUTCHours(wall.hour, wall.minute, wall.second, Math.floor(wall.microsecond / 1000));
  return date.getTime();
}

/** The UTC offset of `zone` at instant `epochMs`, in minutes (east positive). */
export function offsetMinutesAt(epochMs: number, zone: string): number {
  const wall = wallTimeIn(epochMs, zone);
  return Math.round(
    (wallToUtcMs({ ...wall, microsecond: 0 }) - Math.floor(epochMs / 1000) * 1000) / 60_000,
  );
}

/**
 * The instant at which `zone`'s clocks show `wall`. Around DST changes: a time that occurs twice
 * takes the earlier instant; a time skipped by the change is moved forward by the gap (as
 * JavaScript Temporal's "compatible" disambiguation does: 02:30 in a 02:00→03:00 gap is 03:30).
 */
function wallTimeToEpoch(wall: WallTime, zone: string): number {
  const asUtc = wallToUtcMs(wall);
  const day = 86_400_000;
  const offsets = [offsetMinutesAt(asUtc - day, zone), offsetMinutesAt(asUtc + day, zone)];
  const candidates = [...new Set(offsets)]
    .map((offset) => asUtc - offset * 60_000)
    .filter((epoch) => {
      const shown = wallTimeIn(epoch, zone);
      return (
        shown.year === wall.year &&
        shown.month === wall.month &&
        shown.day === wall.day &&
        shown.hour === wall.hour &&
        shown.minute === wall.minute &&
        shown.second === wall.second
      );
    })
    .sort((a, b) => a - b);
  if (candidates.length > 0) return candidates[0] as number;
  // In a gap: use the offset in force before the change, which lands after the gap.
  return asUtc - (offsets[0] as number) * 60_000;
}

const ISO =
  /^(-?\d{4,6})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses an ISO 8601 date or date-time: `2024-05-01`, `2024-05-01T09:30`, `2024-05-01 09:30:15.250`,
 * with an optional `Z` or `±HH:MM` offset. Returns a description of the problem as a string when
 * the text is not such a date, or names an impossible date (Feb 30, hour 24, …).
 */
export function parseIso(text: string): ParsedIso | string {
  const match = ISO.exec(text.trim());
  if (!match) {
    return `"${text}" is not an ISO 8601 date or date-time (e.g. 2024-05-01T09:30:00 or 2024-05-01T09:30:00+08:00)`;
  }
  const [, y, mo, d, h, mi, s, fraction, offset] = match;
  const wall: WallTime = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h ?? 0),
    minute: Number(mi ?? 0),
    second: Number(s ?? 0),
    // Digits past the sixth are cut, as Python's datetime does.
    microsecond: fraction ? Number(fraction.slice(0, 6).padEnd(6, '0')) : 0,
  };
  if (wall.month < 1 || wall.month > 12) return `"${text}" has month ${wall.month} (01-12)`;
  if (wall.day < 1 || wall.day > daysInMonth(wall.year, wall.month)) {
    return `"${text}" has day ${wall.day}, which month ${wall.month} of ${wall.year} does not have`;
  }
  if (wall.hour > 23) return `"${text}" has hour ${wall.hour} (00-23)`;
  if (wall.minute > 59) return `"${text}" has minute ${wall.minute} (00-59)`;
  if (wall.second > 59) return `"${text}" has second ${wall.second} (00-59)`;
  let offsetMinutes: number | undefined;
  if (offset) {
    if (offset.toUpperCase() === 'Z') {
      offsetMinutes = 0;
    } else {
      const sign = offset.startsWith('-') ? -1 : 1;
      const digits = offset.slice(1).replace(':', '');
      const hours = Number(digits.slice(0, 2));
      const minutes = Number(digits.slice(2) || '0');
      if (hours > 23 || minutes > 59) return `"${text}" has an invalid UTC offset ${offset}`;
      offsetMinutes = sign * (hours * 60 + minutes);
    }
  }
  return { wall, offsetMinutes };
}

/**
 * The instant a parsed ISO string names, in milliseconds since the epoch (microseconds cut);
 * strings without an offset are read in `zone`.
 */
export function isoToEpoch(parsed: ParsedIso, zone: string): number {
  return parsed.offsetMinutes === undefined
    ? wallTimeToEpoch(parsed.wall, zone)
    : wallToUtcMs(parsed.wall) - parsed.offsetMinutes * 60_000;
}

/** The instant a parsed ISO string names, in microseconds since the epoch, exactly. */
export function isoToEpochMicroseconds(parsed: ParsedIso, zone: string): bigint {
  const whole = isoToEpoch({ ...parsed, wall: { ...parsed.wall, microsecond: 0 } }, zone);
  return BigInt(whole) * 1000n + BigInt(parsed.wall.microsecond);
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** The strftime directives `time_now` and `time_format` understand. */
const FORMAT_DIRECTIVES: Readonly<Record<string, string>> = {
  '%Y': 'year, 4 digits',
  '%y': 'year, 2 digits',
  '%m': 'month 01-12',
  '%d': 'day 01-31',
  '%H': 'hour 00-23',
  '%I': 'hour 01-12',
  '%p': 'AM or PM',
  '%M': 'minute 00-59',
  '%S': 'second 00-59',
  '%f': 'microseconds, 6 digits',
  '%j': 'day of the year 001-366',
  '%a': 'weekday, abbreviated (Mon)',
  '%A': 'weekday (Monday)',
  '%b': 'month, abbreviated (Jan)',
  '%B': 'month (January)',
  '%z': 'UTC offset (+0800)',
  '%Z': 'time zone name',
  '%%': 'a literal %',
};

/** Checks a strftime format; returns a description of the first unknown directive, if any. */
export function checkFormat(format: string): string | undefined {
  for (let index = 0; index < format.length; index++) {
    if (format[index] !== '%') continue;
    const directive = format.slice(index, index + 2);
    if (!(directive in FORMAT_DIRECTIVES)) {
      return `"${directive}" at index ${index} is not a supported directive; supported: ${Object.keys(FORMAT_DIRECTIVES).join(' ')}`;
    }
    index++;
  }
  return undefined;
}

const pad = (value: number, width = 2) => String(Math.abs(value)).padStart(width, '0');

/** Formats `wall` (with its UTC offset and zone name) by a strftime `format` (checked first). */
export function strftime(
  wall: WallTime,
  offsetMinutes: number,
  zoneName: string,
  format: string,
): string {
  const date = new Date(Date.UTC(2000, 0, 1));
  date.setUTCFullYear(wall.year, wall.month - 1, wall.day);
  const weekday = date.getUTCDay();
  const startOfYear = new Date(Date.UTC(2000, 0, 1));
  startOfYear.setUTCFullYear(wall.year, 0, 1);
  const dayOfYear = Math.round((date.getTime() - startOfYear.getTime()) / 86_400_000) + 1;
  const hour12 = wall.hour % 12 === 0 ? 12 : wall.hour % 12;
  const values: Record<string, () => string> = {
    '%Y': () => (wall.year < 0 ? '-' : '') + pad(wall.year, 4),
    '%y': () => pad(((wall.year % 100) + 100) % 100),
    '%m': () => pad(wall.month),
    '%d': () => pad(wall.day),
    '%H': () => pad(wall.hour),
    '%I': () => pad(hour12),
    '%p': () => (wall.hour < 12 ? 'AM' : 'PM'),
    '%M': () => pad(wall.minute),
    '%S': () => pad(wall.second),
    '%f': () => pad(wall.microsecond, 6),
    '%j': () => pad(dayOfYear, 3),
    '%a': () => (WEEKDAYS[weekday] as string).slice(0, 3),
    '%A': () => WEEKDAYS[weekday] as string,
    '%b': () => (MONTHS[wall.month - 1] as string).slice(0, 3),
    '%B': () => MONTHS[wall.month - 1] as string,
    '%z': () =>
      `${offsetMinutes < 0 ? '-' : '+'}${pad(Math.trunc(Math.abs(offsetMinutes) / 60))}${pad(Math.abs(offsetMinutes) % 60)}`,
    '%Z': () => zoneName,
    '%%': () => '%',
  };
  return format.replace(/%./g, (directive) => values[directive]?.() ?? directive);
}
