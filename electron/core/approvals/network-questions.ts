import { randomBytes } from 'node:crypto';

/** A server asked to reach a host it has no grant for; a person decides. */
export interface NetworkQuestion {
  id: string;
  server: string;
  host: string;
  port: number;
  openedAt: number;
  deadline: number;
}

/**
 * Run-time questions "server X wants to reach host Y": minted here, shown by
 * every shell that can ask, answered once; no answer by the deadline is a
 * deny. Only servers that are not contained are ever asked about (a
 * contained server's promise — no network — must not end quietly at run
 * time; see the host).
 */
export class NetworkQuestions {
  private readonly pending = new Map<
    string,
    { question: NetworkQuestion; resolve: (allow: boolean) => void; reject: (error: Error) => void; timer: ReturnType<typeof setTimeout> }
  >();

  constructor(
    private readonly onDidChange: () => void,
    private readonly timeoutMs = 60_000,
  ) {}

  /**
   * Opens a question; resolves with the person's answer. Rejects with
   * `NoAnswerError` when nobody answered in time or Airlock shut down, so
   * "nobody answered" is never recorded as "denied by you".
   */
  ask(server: string, host: string, port: number): Promise<boolean> {
    const now = Date.now();
    const question: NetworkQuestion = { id: randomBytes(12).toString('base64url'), server, host, port, openedAt: now, deadline: now + this.timeoutMs };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.close(question.id, new NoAnswerError('Nobody answered in time.')), this.timeoutMs);
      this.pending.set(question.id, { question, resolve, reject, timer });
      this.onDidChange();
    });
  }

  list(): NetworkQuestion[] {
    return [...this.pending.values()].map((entry) => entry.question);
  }

  get(id: string): NetworkQuestion | undefined {
    return this.pending.get(id)?.question;
  }

  /** Answers a question this registry issued; false for an unknown or closed id. */
  answer(id: string, allow: boolean): boolean {
    return this.close(id, allow);
  }

  /** Closes every open question unanswered (shutdown): each counts as a deny nobody gave. */
  denyAll(): void {
    for (const id of [...this.pending.keys()]) this.close(id, new NoAnswerError('Airlock shut down before anyone answered.'));
  }

  private close(id: string, answer: boolean | NoAnswerError): boolean {
    const entry = this.pending.get(id);
    if (!entry) return false;
    clearTimeout(entry.timer);
    this.pending.delete(id);
    if (answer instanceof NoAnswerError) entry.reject(answer);
    else entry.resolve(answer);
    this.onDidChange();
    return true;
  }
}

/** A network question closed without a person's answer (the request is denied; nobody denied it). */
export class NoAnswerError extends Error {
  override name = 'NoAnswerError';
}
