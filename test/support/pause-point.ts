/**
 * Pause points for race tests: a step of the product (an LLM reply, a job's last write) waits at a named point until
 * the test lets it go, so an interleaving such as "the erasure runs while this job is half way" happens on every run
 * instead of by luck.
 */

/** Named pause points; a name is usually a ticket id. */
export interface PausePoints {
  /** Resolves once something reached the point `name`. */
  reached(name: string): Promise<void>;
  /** Lets what waits (or will wait) at `name` go on. */
  release(name: string): void;
  /** Waits at `name` until released, then runs `go`. */
  wrap<T>(name: string, go: () => Promise<T>): Promise<T>;
}

interface Slot {
  arrived: () => void;
  arrival: Promise<void>;
  go: () => void;
  released: Promise<void>;
}

/** A fresh set of pause points. */
export function pausePoints(): PausePoints {
  const slots = new Map<string, Slot>();
  const slot = (name: string): Slot => {
    let found = slots.get(name);
    if (!found) {
      let arrived!: () => void;
      let go!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      const released = new Promise<void>((resolve) => (go = resolve));
      found = { arrived, arrival, go, released };
      slots.set(name, found);
    }
    return found;
  };
  return {
    reached: (name) => slot(name).arrival,
    release: (name) => slot(name).go(),
    wrap: async (name, go) => {
      const s = slot(name);
      s.arrived();
      await s.released;
      return go();
    },
  };
}
