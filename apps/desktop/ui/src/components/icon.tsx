// The app's icons: 24x24 strokes drawn for this app, taking the text colour.

/** The icons' paths. */
const ICONS = {
  play: 'M8 5.5v13l10-6.5z',
  pause: 'M8 5h3v14H8zM13 5h3v14h-3z',
  stop: 'M6.5 6.5h11v11h-11z',
  rescue:
    'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18zm0 5a4 4 0 1 1 0 8 4 4 0 0 1 0-8zM5.6 5.6l3.6 3.6M14.8 14.8l3.6 3.6M18.4 5.6l-3.6 3.6M9.2 14.8l-3.6 3.6',
  catchup: 'M4 6l7 6-7 6zM12 6l7 6-7 6z',
  menu: 'M4 7h16M4 12h16M4 17h16',
  pin: 'M4 5h16v11H4zM12 16v4M8 20h8',
  close: 'M6 6l12 12M18 6L6 18',
  bell: 'M6 16V11a6 6 0 1 1 12 0v5l2 2H4zM10 20a2 2 0 0 0 4 0',
  upload: 'M12 16V4M7 9l5-5 5 5M5 20h14',
  send: 'M4 12l16-8-6 16-2.5-6.5z',
} as const;

/** An icon name. */
export type IconName = keyof typeof ICONS;

/** An inline SVG icon (hidden from screen readers: the button around it has the name). */
export function Icon({ name }: { name: IconName }) {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true" class={`icon icon-${name}`}>
      <path d={ICONS[name]} />
    </svg>
  );
}
