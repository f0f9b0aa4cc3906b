import { rm } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * Removes an installed server's folder (npm install or unpacked MCPB).
 * SECURITY (invariant 7): refuses any folder that is not strictly inside
 * `serversRoot`, so a bad record cannot delete anything else.
 */
export async function removeServerDir(serverDir: string, serversRoot: string): Promise<void> {
  const root = resolve(serversRoot);
  const target = resolve(serverDir);
  const rel = relative(root, target);
  if (!rel || rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..')) {
    throw new Error(`refusing to remove ${target}: it is not inside ${root}`);
  }
  await rm(target, { recursive: true, force: true });
}
