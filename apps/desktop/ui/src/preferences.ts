// Preferences of this app (language, sound, last course…) live in the browser profile: the
// launcher gives the app window a profile of its own, so they survive restarts.

const PREFIX = 'class-assistant.';

/** A stored preference, or `fallback`. */
export function preference(key: string, fallback: string): string {
  try {
    return localStorage.getItem(PREFIX + key) ?? fallback;
  } catch {
    return fallback;
  }
}

/** Stores a preference (ignored where storage is unavailable). */
export function savePreference(key: string, value: string): void {
  try {
    localStorage.setItem(PREFIX + key, value);
  } catch {
    // Private mode or storage full: the preference lasts for this session only.
  }
}

/** A stored list of strings. */
export function listPreference(key: string): string[] {
  try {
    const value = JSON.parse(preference(key, '[]')) as unknown;
    return Array.isArray(value)
      ? value.filter((item): item is string => typeof item === 'string')
      : [];
  } catch {
    return [];
  }
}
