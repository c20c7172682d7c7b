/**
 * Progress display of long CLI operations: a redrawn bar on an interactive terminal, plain log lines otherwise (a
 * bar's carriage returns would turn a CI log or a redirected file into one unreadable line).
 */
import cliProgress from 'cli-progress';
import type { Logger } from '../logger.js';
import type { ProgressFn } from '../search/types.js';

/** Shows progress of one or more labelled operations, one at a time. */
export interface ProgressReporter {
  /** A callback for operations labelled `label` (e.g. `manual`); stages it reports are shown as `label stage`. */
  track(label: string): ProgressFn;
  /** Ends the display (the bar's last state stays on screen). */
  stop(): void;
}

/** Fraction steps at which plain progress lines are logged, so a 10 000-pair reindex does not log 10 000 lines. */
const LOG_STEPS = 4;

/**
 * Chooses the display: a cli-progress bar on `stream` when it is a TTY, else info log lines at the start, every
 * quarter and the end of each stage.
 */
export function createProgressReporter(logger: Logger, stream: NodeJS.WriteStream = process.stderr): ProgressReporter {
  return stream.isTTY ? barReporter(stream) : logReporter(logger);
}

function barReporter(stream: NodeJS.WriteStream): ProgressReporter {
  const bar = new cliProgress.SingleBar(
    { format: '{label} [{bar}] {value}/{total}', stream, hideCursor: true, clearOnComplete: false, etaBuffer: 20 },
    cliProgress.Presets.shades_classic,
  );
  let running = false;
  let current = '';
  return {
    track: (label) => ({ stage, done, total }) => {
      const name = `${label} ${stage}`;
      if (!running) {
        bar.start(total, done, { label: name });
        running = true;
      } else if (name !== current) {
        // A new stage keeps the same bar line; the finished stage's total is replaced.
        bar.setTotal(total);
        bar.update(done, { label: name });
      } else {
        bar.update(done);
      }
      current = name;
    },
    stop: () => {
      if (running) bar.stop();
      running = false;
    },
  };
}

function logReporter(logger: Logger): ProgressReporter {
  const lastStep = new Map<string, number>();
  return {
    track: (label) => ({ stage, done, total }) => {
      const name = `${label} ${stage}`;
      const step = total > 0 ? Math.floor((done / total) * LOG_STEPS) : LOG_STEPS;
      if (lastStep.get(name) === step) return;
      lastStep.set(name, step);
      logger.info({ stage: name, done, total }, `${name} ${done}/${total}`);
    },
    stop: () => lastStep.clear(),
  };
}
