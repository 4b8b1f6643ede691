// The schedule records as presenters see them, without importing the repository.
export type { Schedule, ScheduleClaim } from './repository';
