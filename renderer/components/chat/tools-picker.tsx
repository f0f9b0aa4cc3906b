/**
 * Which servers and tools the model may see in this conversation (default:
 * every enabled server). Turning a server off hides all its tools; single
 * tools can be hidden too. Changes are saved at once.
 */
import { useState } from 'react';
import type { ChatToolsView, ToolSelection } from '../../../shared/chat';
import { invoke, useAction } from '../../api';
import { FieldError } from '../field-error';
import { InertText } from '../inert-text';

export function ToolsPicker({ id, selection, onChange }: { id: string; selection: ToolSelection; onChange: (selection: ToolSelection) => void }) {
  const [tools, setTools] = useState<ChatToolsView | undefined>();
  const action = useAction();
  const summary = selection.servers === null ? 'all enabled servers' : selection.servers.length === 0 ? 'no tools' : selection.servers.join(', ');

  const load = async () => {
    const value = await action.run(() => invoke('chat.tools', { id }));
    if (value) setTools(value);
  };
  const save = async (next: ToolSelection) => {
    const value = await action.run(() => invoke('chat.setTools', { id, tools: next }));
    if (value) {
      onChange(value.tools);
      void load();
    }
  };
  const enabledNames = tools?.servers.filter((server) => server.enabled).map((server) => server.name) ?? [];

  return (
    <details className="tools-picker" onToggle={(event) => (event.currentTarget.open ? void load() : undefined)} data-testid="tools-picker">
      <summary>
        Tools: <span data-testid="tools-summary">{summary}</span>
        {selection.hiddenTools.length > 0 ? ` (${selection.hiddenTools.length} hidden)` : ''}
      </summary>
      <FieldError message={action.error} />
      {!tools && <p className="muted">Loading…</p>}
      {tools && tools.servers.length === 0 && <p className="muted">No servers yet. Add one on the Servers page.</p>}
      {tools && (
        <ul className="tools-picker-list">
          {tools.servers.map((server) => (
            <li key={server.name}>
              <label className="check">
                <input
                  type="checkbox"
                  checked={server.selected}
                  disabled={!server.enabled || action.busy}
                  onChange={(event) => {
                    const current = selection.servers ?? enabledNames;
                    const servers = event.target.checked ? [...new Set([...current, server.name])] : current.filter((name) => name !== server.name);
                    void save({ ...selection, servers });
                  }}
                />{' '}
                <strong>
                  <InertText text={server.name} />
                </strong>
                {!server.enabled && <span className="muted"> — stopped (start it on the Servers page)</span>}
              </label>
              {server.selected && server.tools.length > 0 && (
                <ul className="tools-picker-tools">
                  {server.tools.map((tool) => (
                    <li key={tool.name}>
                      <label className="check">
                        <input
                          type="checkbox"
                          checked={tool.selected}
                          disabled={action.busy}
                          onChange={(event) => {
                            const key = `${server.name}/${tool.name}`;
                            const hiddenTools = event.target.checked ? selection.hiddenTools.filter((name) => name !== key) : [...selection.hiddenTools, key];
                            void save({ ...selection, hiddenTools });
                          }}
                        />{' '}
                        <code>
                          <InertText text={tool.name} />
                        </code>
                        {tool.readOnly && <span className="muted small"> (says read-only)</span>}
                      </label>
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      {tools && selection.servers !== null && (
        <button type="button" className="small-button" onClick={() => void save({ servers: null, hiddenTools: [] })}>
          Use every enabled server
        </button>
      )}
    </details>
  );
}
