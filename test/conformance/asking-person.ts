// Requests *from* a remote server, through Airlock's own path, for an entry point that has no window:
// the server is read by the real remote install source (prepareRemote) into a record, its elicitation,
// sampling and roots requests go through the ServerRequestsRoom (decided by policy, asked, written to a
// real audit log), and a person answers each question at a terminal — the same prompts `airlock`'s
// gateway prints (electron/cli/tty.ts). This person answers a form ("y") and presses Enter on every
// field, which keeps the suggestion the server's form shows; anything else (a sampling request, a URL)
// they leave unanswered, and Airlock refuses it when the question ends. Used by remote-client.ts (the
// conformance entry point) and test/core/remote/remote-elicitation.test.ts.
import { AuditLog } from '../../electron/core/audit/audit-log';
import { prepareRemote } from '../../electron/core/install/remote-source';
import { ServerRequestsRoom } from '../../electron/core/server-requests/server-requests-room';
import { toServerRequestView } from '../../electron/core/server-requests/views';
import { askServerRequestOnTerminal } from '../../electron/cli/tty';
import { defaultSandboxProfile, type PolicyMode, type ServerRecord } from '../../shared/domain';

export interface AskingPerson {
  room: ServerRequestsRoom;
  audit: AuditLog;
  /** The server's record as the remote install source read it (enabled: the person added it). */
  record: ServerRecord;
  /** What the terminal showed and what the person typed, in order. */
  transcript: string[];
  dispose(): Promise<void>;
}

/**
 * A room for one remote server and a person at its terminal. `canAsk: false`
 * is a machine with nobody to ask (every question is then refused by policy).
 */
export async function askingPerson(options: { name: string; url: string; auditDir: string; canAsk?: boolean; policyMode?: PolicyMode; questionTimeoutMs?: number }): Promise<AskingPerson> {
  const { candidate } = await prepareRemote({ url: options.url, name: options.name });
  const record: ServerRecord = {
    name: options.name,
    spec: candidate.spec,
    provenance: candidate.provenance,
    profile: defaultSandboxProfile(),
    trusted: false,
    enabled: true,
    approvedTools: {},
    createdAt: new Date().toISOString(),
  };
  let current = record;
  const audit = new AuditLog({ dir: options.auditDir });
  const transcript: string[] = [];
  const room = new ServerRequestsRoom({
    state: () => ({ servers: { [current.name]: current }, settings: { policyMode: options.policyMode ?? 'default' } }),
    updateRecord: (_name, change) => (current = change(current)),
    audit,
    askers: () => ((options.canAsk ?? true) ? ['local'] : []),
    recordChange: () => {},
    emit: () => {},
    note: (server, text) => transcript.push(`[${server}] ${text}`),
    now: () => Date.now(),
    ...(options.questionTimeoutMs !== undefined ? { questionTimeoutMs: options.questionTimeoutMs } : {}),
  });
  const terminal = {
    ask(question: string): Promise<string> {
      transcript.push(question);
      // "Answer it?" → y; every field's prompt → Enter (keeps the suggestion shown in [brackets], skips a field without one).
      const typed = /Answer it\? \[y = answer/.test(question) ? 'y' : '';
      transcript.push(`> ${typed}`);
      return Promise.resolve(typed);
    },
  };
  const stop = room.onDidOpen((entry) => {
    const view = toServerRequestView(entry);
    if (view.kind !== 'elicitation-form') return; // left to expire: Airlock refuses it
    void askServerRequestOnTerminal({ serverRequests: room }, terminal, view, { kind: 'terminal', origin: 'local' }).catch((error: unknown) => transcript.push(`the terminal failed: ${String(error)}`));
  });
  return {
    room,
    audit,
    get record() {
      return current;
    },
    transcript,
    async dispose() {
      stop();
      room.dispose();
      await audit.close();
    },
  };
}
