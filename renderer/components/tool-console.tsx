/**
 * The tool console: call any tool by hand. A call made here is the person's
 * own consent, recorded as such by the core. The form is generated from
 * simple input schemas (string, number, integer, boolean, enum) with a raw
 * JSON fallback. JSON-Schema form libraries (rjsf and friends) validate with
 * ajv, which compiles schemas with `new Function` — forbidden by the app's
 * CSP (`script-src 'self'`, no 'unsafe-eval') — so this small form is ours;
 * the core validates the arguments against the schema anyway. A tool with
 * a screen (MCP Apps) shows it under the result (see tool-screen.tsx).
 */
import { useId, useMemo, useState } from 'react';
import { ownEntry } from '../../shared/plain';
import type { CallResultView, ToolView } from '../../shared/views';
import { invoke, useAction } from '../api';
import { Badge } from './badges';
import { argumentsFrom, fieldsOf } from '../schema-form';
import { InertText, safeJson, visible } from './inert-text';
import { FieldError } from './field-error';
import { ToolScreen } from './tool-screen-lazy';

export function ToolConsole({ server, tools }: { server: string; tools: ToolView[] }) {
  const [toolName, setToolName] = useState(tools[0]?.name ?? '');
  const tool = tools.find((t) => t.name === toolName);
  const ids = { tool: useId() };
  if (tools.length === 0) return <p className="muted">No tools to call (start the server to list them).</p>;
  return (
    <div className="console panel" data-testid="tool-console">
      <p className="muted small">A call you make here is your own decision: Airlock records it as yours, and the sandbox limits still apply.</p>
      <div className="field-row">
        <label htmlFor={ids.tool}>Tool</label>
        <select id={ids.tool} value={toolName} onChange={(e) => setToolName(e.target.value)}>
          {tools.map((t) => (
            <option key={t.name} value={t.name}>
              {/* Option text cannot hold elements: the same visible markers, as a string. */}
              {visible(t.name)}
            </option>
          ))}
        </select>
      </div>
      {tool && <ToolForm key={tool.name} server={server} tool={tool} />}
    </div>
  );
}

function ToolForm({ server, tool }: { server: string; tool: ToolView }) {
  const fields = useMemo(() => fieldsOf(tool.inputSchema), [tool.inputSchema]);
  const [raw, setRaw] = useState(fields === undefined);
  const [values, setValues] = useState<Record<string, string>>({});
  const [json, setJson] = useState('{}');
  const [problem, setProblem] = useState<string | undefined>();
  const [result, setResult] = useState<{ view: CallResultView; args: Record<string, unknown>; at: number } | undefined>();
  const action = useAction();
  const formId = useId();

  const call = async () => {
    setProblem(undefined);
    let args: Record<string, unknown> | undefined;
    if (raw || !fields) {
      try {
        const parsed: unknown = JSON.parse(json);
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('The arguments must be a JSON object.');
        args = parsed as Record<string, unknown>;
      } catch (error) {
        setProblem(error instanceof Error ? error.message : String(error));
        return;
      }
    } else {
      const built = argumentsFrom(fields, values);
      if (built.error) {
        setProblem(built.error);
        return;
      }
      args = built.value;
    }
    const sent = args ?? {};
    const value = await action.run(() => invoke('tools.call', { server, tool: tool.name, arguments: sent }));
    if (value) setResult({ view: value, args: sent, at: Date.now() });
  };

  return (
    <form
      className="tool-form"
      onSubmit={(e) => {
        e.preventDefault();
        void call();
      }}
    >
      <InertText text={tool.description} quoted fold={300} className="tool-description small" />
      {fields && (
        <label className="check small">
          <input
            type="checkbox"
            checked={raw}
            onChange={(e) => {
              if (e.target.checked) {
                const built = argumentsFrom(fields, values);
                setJson(safeJson(built.value ?? {}));
              }
              setRaw(e.target.checked);
            }}
          />{' '}
          Write the arguments as JSON
        </label>
      )}
      {!fields && <p className="muted small">This tool’s schema is too rich for a form: write the arguments as JSON.</p>}
      {raw || !fields ? (
        <label className="block-label">
          Arguments (JSON object)
          <textarea value={json} rows={6} spellCheck={false} onChange={(e) => setJson(e.target.value)} data-testid="console-json" />
        </label>
      ) : (
        fields.map((field) => {
          const id = `${formId}-${field.name}`;
          return (
            <div key={field.name} className="field-row">
              <label htmlFor={id}>
                <code><InertText text={field.name} /></code>
                {field.required && (
                  <span className="required" aria-label="required">
                    {' '}
                    *
                  </span>
                )}{' '}
                <span className="muted small">{field.kind}</span>
              </label>
              {field.kind === 'boolean' || field.kind === 'enum' ? (
                <select id={id} value={ownEntry(values, field.name) ?? ''} onChange={(e) => setValues({ ...values, [field.name]: e.target.value })}>
                  <option value="">{field.required ? 'Choose…' : '(leave out)'}</option>
                  {(field.kind === 'boolean' ? [true, false] : (field.options ?? [])).map((option) => (
                    <option key={String(option)} value={String(option)}>
                      {String(option)}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  id={id}
                  type="text"
                  inputMode={field.kind === 'string' ? 'text' : 'decimal'}
                  value={ownEntry(values, field.name) ?? ''}
                  required={field.required}
                  spellCheck={false}
                  onChange={(e) => setValues({ ...values, [field.name]: e.target.value })}
                />
              )}
              {field.description && <InertText text={field.description} quoted fold={200} className="muted small" />}
            </div>
          );
        })
      )}
      {problem && (
        <p role="alert" className="field-error">
          {problem}
        </p>
      )}
      <FieldError message={action.error} />
      <button type="submit" className="primary" disabled={action.busy}>
        {action.busy ? 'Calling…' : 'Call'}
      </button>
      {result && <CallResult result={result.view} />}
      {/* The tool's screen (MCP Apps), after its call: the call's arguments and result go to it. */}
      {result && tool.screen && (result.view.outcome === 'ok' || result.view.outcome === 'tool-error') && (
        <ToolScreen
          key={result.at}
          server={server}
          tool={tool.name}
          input={result.args}
          callAllowed
          result={{ content: result.view.content, ...(result.view.structuredContent !== undefined ? { structuredContent: result.view.structuredContent } : {}), ...(result.view.outcome === 'tool-error' ? { isError: true } : {}) }}
        />
      )}
    </form>
  );
}

function CallResult({ result }: { result: CallResultView }) {
  const tone = result.outcome === 'ok' ? 'ok' : result.outcome === 'denied' ? 'danger' : 'warn';
  const label = { ok: 'Done', 'tool-error': 'The tool reported an error', unknown: 'Outcome unknown — the server may have acted', denied: 'Denied', 'not-running': 'Not sent: the server is not running' }[result.outcome];
  return (
    <div className="call-result" data-testid="call-result" aria-live="polite">
      <p>
        <Badge tone={tone}>{label}</Badge> <span className="muted small">{Math.round(result.durationMs)} ms</span>
      </p>
      {result.message && <InertText text={result.message} block />}
      {result.content.map((item, i) => {
        const part = item as { type?: unknown; text?: unknown };
        return (
          <div key={i} className="result-part">
            {part.type === 'text' && typeof part.text === 'string' ? (
              <InertText text={part.text} quoted fold={4000} className="output" />
            ) : (
              <>
                <span className="muted small">{typeof part.type === 'string' ? `${part.type} (shown as data, not displayed)` : 'Content'}</span>
                <InertText text={safeJson(item)} quoted fold={2000} className="output" />
              </>
            )}
          </div>
        );
      })}
      {result.structuredContent !== undefined && (
        <details>
          <summary>Structured result</summary>
          <InertText text={safeJson(result.structuredContent)} quoted fold={4000} className="output" />
        </details>
      )}
    </div>
  );
}
