/**
 * Tells the shells that the audit log grew — once per turn of the event
 * loop, with the newest entry's number, however many entries that turn
 * wrote. The Activity page and a server's page refresh on it, and the
 * owner process sends it to every client process: per entry (a call writes
 * two) that was work on the call's way, and a burst of calls sent a burst of
 * identical messages. Nothing is lost: the event carries no entry, only
 * "read again", and the newest number.
 */
export function coalescedAppendNotices(notify: (seq: number) => void): (seq: number) => void {
  let newest = 0;
  let scheduled = false;
  return (seq) => {
    if (seq > newest) newest = seq;
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      notify(newest);
    });
  };
}
