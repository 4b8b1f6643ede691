import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorsMarkdown } from '../shared/composition/error-catalog-doc';

const target = join(__dirname, '..', 'docs', 'errors.md');
writeFileSync(target, errorsMarkdown());
console.log(`wrote ${target}`);
