import fs from 'node:fs';

/** Linux's USER_HZ: /proc counts CPU time in hundredths of a second. */
const TICKS_PER_SECOND = 100;

/** User + system CPU ms of a /proc stat line, and the command name in it. */
function parseStat(stat: string): { name: string; ms: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND,
  };
}

/** CPU ms a process (or with `thread`, one of its threads) has used so far; NaN when it is gone or unknown. */
export function cpuMs(pid: number | undefined, thread?: number): number {
  if (!pid) return NaN;
  try {
    return parseStat(fs.readFileSync(thread ? `/proc/${pid}/task/${thread}/stat` : `/proc/${pid}/stat`, 'utf8')).ms;
  } catch {
    return NaN;
  }
}

/** CPU ms so far of every process, summed by command name (processes that come and go, as PostgreSQL's backends, included); this process is named 'self'. */
export function cpuMsByName(): Map<string, number> {
  const out = new Map<string, number>();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const { name, ms } = parseStat(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
      const key = Number(pid) === process.pid ? 'self' : name;
      out.set(key, (out.get(key) ?? 0) + ms);
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}
