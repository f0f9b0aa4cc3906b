/**
 * The dialogs for what a server asks back (SECURITY.md rules 7 and 8), shown
 * by the dialog queue one at a time, like tool confirmations:
 * - a sampling request: the server's exact messages, system prompt, context
 *   and limits; the person may edit them, then allow once / this session /
 *   always, or deny;
 * - the model's answer to it: approve, edit or refuse before the server sees it;
 * - a form: "<server> asks you", the server's text quoted as its own, fields
 *   that start empty (a default is shown and used only on a click), fields
 *   that look secret flagged, decline and cancel always there;
 * - a web page to open: the full address with its host highlighted, Punycode
 *   warned, never loaded by the window; the system browser opens it only
 *   after the click (`requests.openUrl`).
 * Escape (or closing) refuses: deny, refuse or decline. Airlock's own words
 * are built from the view's parts; everything a server, an app or a model
 * wrote goes through <InertText>. Each kind has its file (sampling-dialogs.tsx,
 * elicitation-form-dialog.tsx, elicitation-url-dialog.tsx); what they share is
 * question-parts.tsx, and the frame every question shares, asking-dialog.tsx.
 */
import type { ServerRequestView } from '../../shared/views';
import { ElicitationFormDialog } from './elicitation-form-dialog';
import { ElicitationUrlDialog } from './elicitation-url-dialog';
import type { DialogProps } from './question-parts';
import { SamplingRequestDialog, SamplingResponseDialog } from './sampling-dialogs';

/** The dialog for one question from a server, by its kind. */
export function ServerRequestDialog({ question, ...rest }: DialogProps<ServerRequestView>) {
  switch (question.kind) {
    case 'sampling-request':
      return <SamplingRequestDialog question={question} {...rest} />;
    case 'sampling-response':
      return <SamplingResponseDialog question={question} {...rest} />;
    case 'elicitation-form':
      return <ElicitationFormDialog question={question} {...rest} />;
    case 'elicitation-url':
      return <ElicitationUrlDialog question={question} {...rest} />;
  }
}
