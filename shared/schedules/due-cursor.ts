import { errors } from '../platform/errors/index';
import type { QueuedOccurrence } from './due-queue';

/** A page cursor: the coalesced due_at and schedule id of the last occurrence looked at. */
export interface Cursor {
  due_at: Date;
  id: string;
}

export function isAfter(o: QueuedOccurrence, c: Cursor): boolean {
  const d = o.due_at.getTime() - c.due_at.getTime();
  return d > 0 || (d === 0 && o.schedule._id > c.id);
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.due_at.toISOString()}|${c.id}`).toString('base64url');
}

export function decodeCursor(s: string): Cursor {
  const [at, id] = Buffer.from(s, 'base64url').toString().split('|');
  const due = new Date(at);
  if (!id || Number.isNaN(due.getTime()))
    throw errors.badRequest('invalid_request_body', 'cursor is not one this endpoint gave out');
  return { due_at: due, id };
}
