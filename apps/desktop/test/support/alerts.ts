// Alerts the backend publishes, raised from a test: the same event the monitor publishes for a
// line it heard (`alert.raised` on the backend's hub, to every window through the real live
// stream), with the `for_you` the test chooses.
import type { TestBackend } from './ui-harness.ts';

/** What an alert says; the time defaults to now. */
export interface RaisedAlert {
  level: 'danger' | 'warning';
  keywords: string[];
  text: string;
  for_you: boolean;
  timestamp?: string;
}

/** Publishes the alert on the backend's live events. */
export function raiseAlert(backend: TestBackend, alert: RaisedAlert): void {
  backend.app.classAssistant.hub.publish('alert.raised', {
    type: 'keyword_alert',
    timestamp: new Date().toTimeString().slice(0, 8),
    ...alert,
  });
}
