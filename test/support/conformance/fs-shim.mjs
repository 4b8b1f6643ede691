// node:fs for the conformance CLI on Node 20: it imports `globSync` (Node 22) at load time but
// calls it only for commands the server scenarios never run.
import fs from 'node:fs';
export * from 'node:fs';
export default fs;
export function globSync() {
  throw new Error('fs.globSync needs Node 22; this conformance command is not available on Node 20');
}
