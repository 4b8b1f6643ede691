import { createRepositories, type Repositories } from '../../shared/composition/root';
import type { Db } from '../../shared/composition/store';
import { parseConfig } from '../../shared/platform/config/index';

/** The composition root's repositories over a test's own database, as a worker process builds them. */
export function repositoriesOf(db: Db): Repositories {
  return createRepositories({ config: parseConfig(process.env), db });
}
