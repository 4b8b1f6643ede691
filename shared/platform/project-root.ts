import fs from 'node:fs';
import path from 'node:path';

/**
 * The folder holding the service's package.json, found by walking up from this file: the checkout
 * when the sources run, the image's /app when the compiled code runs from dist/ (one level deeper),
 * so files read from the project's root resolve the same in both.
 */
function findProjectRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const PROJECT_ROOT = findProjectRoot(__dirname);
