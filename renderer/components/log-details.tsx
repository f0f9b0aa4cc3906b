/**
 * The Details column of the tables that show the audit log (audit-table.tsx,
 * server-requests-table.tsx): a line of the log's words, and a value the log
 * kept (arguments, a request, an answer), folded away — inert, like all of it.
 */
import { InertText, safeJson } from './inert-text';

/** One line of the log's own words (reasons, a detail), folded when long. */
export function LogNote({ text }: { text: string }) {
  return (
    <div className="small">
      <InertText text={text} fold={300} />
    </div>
  );
}

/** A value as the log kept it, as JSON behind its summary. */
export function LoggedValue({ summary, value, fold }: { summary: string; value: unknown; fold: number }) {
  return (
    <details>
      <summary className="small">{summary}</summary>
      <InertText text={safeJson(value)} block fold={fold} className="output" />
    </details>
  );
}
