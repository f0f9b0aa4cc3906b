/** TCP sockets as the kernel lists them (/proc/net/tcp, tcp6): what a listener is really bound to, seen from outside the process. */
import { readFileSync } from 'node:fs';

export interface KernelSocket {
  /** Local address as the kernel writes it (hex, e.g. `0100007F:1F90` for 127.0.0.1:8080). */
  local: string;
  /** State (hex): `0A` listening, `01` established. */
  state: string;
  side: 'server' | 'client';
}

/** Every TCP socket of this machine with `port` on one end. */
export function kernelSockets(port: number): KernelSocket[] {
  const rows: KernelSocket[] = [];
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4) continue;
      const [local, remote, state] = [fields[1]!, fields[2]!, fields[3]!];
      if (local.endsWith(`:${hexPort}`)) rows.push({ local, state, side: 'server' });
      else if (remote.endsWith(`:${hexPort}`)) rows.push({ local, state, side: 'client' });
    }
  }
  return rows;
}

/** The kernel's spelling of 127.0.0.1:`port` in /proc/net/tcp. */
export const loopbackHex = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
