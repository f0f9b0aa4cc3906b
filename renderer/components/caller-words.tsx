/**
 * Who asks for a call, in the window's words — by the caller's kind, which
 * only the core assigns, never by a name someone chose (SECURITY.md, "An
 * answer must come from the person"): the person in this window is "You";
 * the person at `airlock call` is "You (command line)" — any program on this
 * computer can run that command, so it never reads as the window's own "You
 * are about to"; a gateway app is `app “Name”`, its name quoted as data (an
 * app calling itself "You" reads as an app); the built-in agent is named with
 * its model; a server's screen is "NAME’s screen" — the server's code asking,
 * whoever clicked inside it.
 */
import type { Caller } from '../../shared/domain';
import { InertText } from './inert-text';

/** The caller as the subject of the headline: "You", "You (command line)", "app “Claude”", "Airlock's agent (model)". */
export function CallerName({ caller, fold = 80 }: { caller: Caller; fold?: number }) {
  switch (caller.kind) {
    case 'user':
      return <>You</>;
    case 'cli':
      return <>You (command line)</>;
    case 'client':
      return (
        <span className="caller-app">
          app “<InertText text={caller.name} fold={fold} />”
        </span>
      );
    case 'agent':
      return (
        <>
          Airlock's agent (<InertText text={caller.model} fold={fold} />)
        </>
      );
    case 'screen':
      // The server's own code: named as the server's, never as the person.
      return (
        <span className="caller-screen">
          <InertText text={caller.server} fold={fold} />’s screen
        </span>
      );
  }
}

/** "You are about to run", "You (command line) asked to run", "app “X” wants to run". */
export function CallerAsks({ caller, fold }: { caller: Caller; fold?: number }) {
  if (caller.kind === 'user') return <>You are about to run </>;
  return (
    <>
      <CallerName caller={caller} fold={fold} />
      {caller.kind === 'cli' ? ' asked to run ' : ' wants to run '}
    </>
  );
}

/** Said under the headline when the call came from `airlock call`: the window cannot tell who typed it. */
export function CommandLineNote({ caller }: { caller: Caller }) {
  if (caller.kind !== 'cli') return null;
  return (
    <p className="caller-note small" data-testid="caller-note">
      This came from <code>airlock call</code> on this computer, not from this window. Any program running as you can use that command: allow it only if you just ran it
      yourself.
    </p>
  );
}
