/**
 * Sections of one screen as tabs a person would name (Overview · Tools ·
 * Permissions · …), following the WAI-ARIA tabs pattern: one tab stop, the
 * arrow keys (and Home/End) move between tabs, the panel is labelled by its
 * tab. A screen passes a list, so a later feature adds a tab by adding an
 * entry — nothing else changes.
 */
import { useId, useRef, type ReactNode } from 'react';

/** One section: what its tab says, and what its panel shows. */
export interface TabSpec {
  id: string;
  label: string;
  /** A short count or mark beside the label ("14", "1 changed"). */
  badge?: string | number;
  /** Draws attention (e.g. a pending change waits in this section). */
  attention?: boolean;
  render: () => ReactNode;
}

export function Tabs({ tabs, selected, onSelect, label, testId }: { tabs: readonly TabSpec[]; selected: string; onSelect: (id: string) => void; label: string; testId?: string }) {
  const base = useId();
  const refs = useRef(new Map<string, HTMLButtonElement>());
  const current = tabs.find((tab) => tab.id === selected) ?? tabs[0];
  const move = (from: number, step: number | 'first' | 'last') => {
    const index = step === 'first' ? 0 : step === 'last' ? tabs.length - 1 : (from + step + tabs.length) % tabs.length;
    const next = tabs[index]!;
    onSelect(next.id);
    refs.current.get(next.id)?.focus();
  };
  if (!current) return null;
  return (
    <div className="tabs" data-testid={testId}>
      <div role="tablist" aria-label={label} className="tab-list">
        {tabs.map((tab, index) => (
          <button
            key={tab.id}
            ref={(element) => {
              if (element) refs.current.set(tab.id, element);
              else refs.current.delete(tab.id);
            }}
            type="button"
            role="tab"
            id={`${base}-tab-${tab.id}`}
            aria-selected={tab.id === current.id}
            aria-controls={`${base}-panel-${tab.id}`}
            tabIndex={tab.id === current.id ? 0 : -1}
            className={`tab${tab.attention ? ' tab-attention' : ''}`}
            data-testid={`tab-${tab.id}`}
            onClick={() => onSelect(tab.id)}
            onKeyDown={(event) => {
              const step = { ArrowRight: 1, ArrowLeft: -1, Home: 'first', End: 'last' } as const;
              const key = event.key as keyof typeof step;
              if (key in step) {
                event.preventDefault();
                move(index, step[key]);
              }
            }}
          >
            {tab.label}
            {tab.badge !== undefined && <span className="tab-badge">{tab.badge}</span>}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${base}-panel-${current.id}`} aria-labelledby={`${base}-tab-${current.id}`} tabIndex={0} className="tab-panel" data-testid={`panel-${current.id}`}>
        {current.render()}
      </div>
    </div>
  );
}
