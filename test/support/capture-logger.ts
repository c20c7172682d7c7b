/** A real pino logger whose JSON lines are kept for a test to read (what a role logs, at debug and above). */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import type { Logger } from '../../src/logger.js';

/** One JSON log line: its pino level (40 warn) and message, with its fields. */
export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

/** pino's level number of warn. */
export const WARN = 40;

/** A pino logger whose JSON lines land in `lines`. */
export function captureLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as LogLine);
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}
