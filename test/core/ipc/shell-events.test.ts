// What each shell is sent of each event, as one table: every event the contract names has a row,
// questions are rebuilt for the receiving shell, and network questions reach the window only.
import { describe, expect, it } from 'vitest';
import { events, type EventName } from '../../../shared/ipc';
import { EVENT_AUDIENCE, eventForShell, type ShellQuestionSources } from '../../../electron/core/ipc/shell-events';
import { WINDOW_SHELL, type ShellIdentity } from '../../../electron/core/ipc/shell-identity';

const PEER: ShellIdentity = { kind: 'terminal', origin: 'peer-7', label: 'cli: another process' };
const asked: string[] = [];
const sources: ShellQuestionSources = {
  confirmations: (shell) => (asked.push(`confirmations for ${shell.origin}`), []),
  serverQuestions: (shell) => (asked.push(`questions for ${shell.origin}`), []),
};
const everyonesList = [{ id: 'q', secret: 'what the window sees' }] as never;

describe('events by shell', () => {
  it('every event the contract names says who sees it', () => {
    expect(Object.keys(EVENT_AUDIENCE).sort()).toEqual(Object.keys(events).sort());
  });

  it.each(Object.keys(events) as EventName[])('%s', (event) => {
    asked.length = 0;
    const toWindow = eventForShell(WINDOW_SHELL, event, everyonesList, sources);
    const toPeer = eventForShell(PEER, event, everyonesList, sources);
    switch (EVENT_AUDIENCE[event]) {
      case 'everyone':
        expect(toWindow).toBe(everyonesList);
        expect(toPeer).toBe(everyonesList);
        break;
      case 'window':
        expect(toWindow).toBe(everyonesList);
        expect(toPeer).toBeUndefined();
        break;
      case 'own':
        // Built for each shell from what it may see, never the emitted list.
        expect(toPeer).toEqual([]);
        expect(asked).toContain(`${event === 'approvals.didChange' ? 'confirmations' : 'questions'} for peer-7`);
        break;
    }
  });

  it('questions are never sent as emitted, and network questions never to a client process', () => {
    expect(EVENT_AUDIENCE['requests.didChange']).toBe('own');
    expect(EVENT_AUDIENCE['approvals.didChange']).toBe('own');
    expect(EVENT_AUDIENCE['network.didChange']).toBe('window');
  });

  it('an event no row names is sent to nobody', () => {
    expect(eventForShell(WINDOW_SHELL, 'something.new' as EventName, everyonesList, sources)).toBeUndefined();
  });
});
