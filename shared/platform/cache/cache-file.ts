import fs from 'node:fs';
import path from 'node:path';

/**
 * Writes a build output into a cache folder, creating it: to a temporary name, then renamed, so a
 * process reading concurrently (parallel test workers, worker processes starting together) sees
 * no file or a whole one.
 */
export function writeCacheFile(file: string, data: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
}
