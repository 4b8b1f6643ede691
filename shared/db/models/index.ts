import { Connection } from 'mongoose';
import { systemPingModel } from './system-ping';

/** Every model bound to one connection; register before connecting so indexes build on connect. */
export function registerModels(conn: Connection) {
  return {
    pings: systemPingModel(conn),
  };
}

export type Models = ReturnType<typeof registerModels>;
