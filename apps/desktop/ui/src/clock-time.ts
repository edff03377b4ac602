// A length or a position in a recording as people read it on a player.

/**
 * `ms` as `1:02:13`, or `42:13` under an hour.
 *
 * @example
 * clockTime(723_000); // '12:03'
 */
export function clockTime(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const pad = (value: number) => String(value).padStart(2, '0');
  const hours = Math.floor(seconds / 3600);
  const rest = `${pad(Math.floor(seconds / 60) % 60)}:${pad(seconds % 60)}`;
  return hours > 0 ? `${hours}:${rest}` : `${Math.floor(seconds / 60)}:${pad(seconds % 60)}`;
}
