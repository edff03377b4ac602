// A view still built by hand (an element and an update function) inside the component tree, for
// the duration of the move to components.
import { useLayoutEffect, useRef } from 'preact/hooks';
import type { AppContext } from '../context.ts';
import { useApp } from '../context.ts';
import { type AppState, IDLE_MONITOR } from '../store.ts';

/** A hand-built view. */
export interface LegacyView {
  element: HTMLElement;
  update?(state: AppState, previous: AppState): void;
  onShow?(): void;
  /** Called when the view leaves the page. */
  dispose?(): void;
}

/** Mounts `create(app)` once and keeps it updated from the store; `onShow` when it becomes active. */
export function Legacy({
  create,
  active = true,
}: {
  create: (app: AppContext) => LegacyView;
  active?: boolean;
}) {
  const app = useApp();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<LegacyView | null>(null);
  useLayoutEffect(() => {
    const made = create(app);
    view.current = made;
    host.current?.replaceChildren(made.element);
    const first = app.store.get();
    // Render everything once: a "previous" state that differs from the current one everywhere.
    made.update?.(first, {
      ...first,
      health: null,
      lines: [],
      partial: '\u0000',
      historySummary: '\u0000',
      keywords: [],
      monitor: { ...IDLE_MONITOR, state: first.monitor.state === 'idle' ? 'running' : 'idle' },
    });
    const unsubscribe = made.update ? app.store.subscribe(made.update) : undefined;
    return () => {
      unsubscribe?.();
      made.dispose?.();
      made.element.remove();
    };
  }, [app, create]);
  useLayoutEffect(() => {
    const made = view.current;
    if (!made) return;
    made.element.hidden = !active;
    if (active) made.onShow?.();
  }, [active]);
  return <div class="legacy-view" ref={host} />;
}
