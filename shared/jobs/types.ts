// The jobs records as presenters see them: plain types, so HTTP code never imports a model or the repository.
export type { JobDoc } from './models/job';
export type { JobCompletionDoc } from './models/job-completion';
export type { Reservation } from './repository';
