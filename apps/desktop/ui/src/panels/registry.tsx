// The panels of the 480x520 window, in tab order: the one list the tabs, the shortcuts and the
// app read.
import type { ComponentType } from 'preact';
import type { AppContext } from '../context.ts';
import type { TextKey } from '../i18n.ts';
import type { PanelName } from '../store.ts';
import { AskPanel } from './ask-panel.tsx';
import { CatchupPanel } from './catchup-panel.tsx';
import { ClassPanel } from './class-panel.tsx';
import { KeywordsPanel } from './keywords-panel.tsx';
import { LibraryPanel } from './library-panel.tsx';
import { MaterialPanel } from './material-panel.tsx';
import { NotesPanel } from './notes-panel.tsx';
import { RescuePanel } from './rescue-panel.tsx';
import { SettingsPanel } from './settings-panel.tsx';
import { TranscriptPanel } from './transcript-panel.tsx';

/** What every panel component gets. */
export interface PanelProps {
  /** True while the panel is the one shown (load fresh data when it becomes true). */
  active: boolean;
}

/** One panel. */
export interface PanelEntry {
  id: PanelName;
  /** The tab's text. */
  title: TextKey;
  /**
   * The key that opens it (Alt+key anywhere, the key alone outside text fields): a letter, or
   * `,`.
   */
  shortcut: string;
  /** What the shortcut does, when more than opening or closing the panel. */
  onShortcut?(app: AppContext): void;
  component: ComponentType<PanelProps>;
}

/** The panels, in tab order. */
export const PANELS: readonly PanelEntry[] = [
  { id: 'class', title: 'tabClass', shortcut: 'm', component: ClassPanel },
  { id: 'transcript', title: 'tabTranscript', shortcut: 't', component: TranscriptPanel },
  { id: 'material', title: 'tabMaterial', shortcut: 'g', component: MaterialPanel },
  {
    id: 'rescue',
    title: 'tabRescue',
    shortcut: 'r',
    onShortcut: (app) => app.rescue(),
    component: RescuePanel,
  },
  {
    id: 'catchup',
    title: 'tabCatchup',
    shortcut: 'c',
    onShortcut: (app) => app.catchup(),
    component: CatchupPanel,
  },
  { id: 'ask', title: 'tabAsk', shortcut: 'a', component: AskPanel },
  { id: 'notes', title: 'tabNotes', shortcut: 'n', component: NotesPanel },
  { id: 'library', title: 'tabLibrary', shortcut: 'l', component: LibraryPanel },
  { id: 'keywords', title: 'tabKeywords', shortcut: 'k', component: KeywordsPanel },
  { id: 'settings', title: 'tabSettings', shortcut: ',', component: SettingsPanel },
];
