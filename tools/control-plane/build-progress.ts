// How far along the Go build of the control plane is: first the modules
// `go list` downloads, then the packages compiled of those it says need
// compiling, with an estimate of the time left. In a terminal it is one line
// rewritten in place; elsewhere (CI logs, pipes) a plain line at every tenth
// of the way, so that a log holds about a dozen.

/** Where progress is written: a terminal gets one updating line. */
export interface ProgressStream {
  isTTY?: boolean;
  /** The terminal's width: a longer line would wrap, and `\r` no longer rewrites it. */
  columns?: number;
  write(text: string): unknown;
}

const REDRAW_INTERVAL_MS = 250;
const TICK_MS = 1_000;
/** Below this share of the packages, the rate is too young to predict from. */
const ESTIMATE_AFTER = 0.05;

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return rest === 0 ? `${minutes} min` : `${minutes} min ${rest} s`;
}

/**
 * How the time of a first build is spread over its packages: at a tenth of
 * the packages compiled, 6 % of the time has passed; at half of them, 29 %.
 * The big packages (kube-apiserver's own, the API types, etcd's server) come
 * last, so the rate of the first minutes would promise half the real time.
 * Measured on a cold build of Kubernetes v1.35.4 on 2 cores (466 s of
 * compiling); [share of packages, share of time].
 */
export const FIRST_BUILD_PROFILE: readonly (readonly [number, number])[] = [
  [0, 0],
  [0.1, 0.062],
  [0.2, 0.142],
  [0.3, 0.191],
  [0.4, 0.236],
  [0.5, 0.29],
  [0.6, 0.464],
  [0.7, 0.575],
  [0.8, 0.755],
  [0.9, 0.839],
  [1, 1],
];

/** The share of the time that has passed when `share` of the packages are compiled, on `profile`. */
function timeShare(share: number, profile: readonly (readonly [number, number])[]): number {
  for (let i = 1; i < profile.length; i++) {
    const [x1, y1] = profile[i];
    if (share <= x1) {
      const [x0, y0] = profile[i - 1];
      return y0 + ((share - x0) / (x1 - x0)) * (y1 - y0);
    }
  }
  return 1;
}

/**
 * The time left, or undefined while it is too early to say: on a first
 * build, from {@link FIRST_BUILD_PROFILE}; on a partial one (a handful of
 * packages), at the rate so far.
 */
export function estimateRemainingMs(
  compiled: number,
  total: number,
  elapsedMs: number,
  profile?: readonly (readonly [number, number])[],
): number | undefined {
  if (total <= 0 || compiled < total * ESTIMATE_AFTER || compiled >= total) return undefined;
  const share = profile ? timeShare(compiled / total, profile) : compiled / total;
  return (elapsedMs / share) * (1 - share);
}

/** `compiled 812 of 2,311 packages (35 %), about 3 min 10 s left`, or `… linking` once all are compiled. */
export function describeProgress(
  compiled: number,
  total: number,
  elapsedMs: number,
  profile?: readonly (readonly [number, number])[],
): string {
  const shown = Math.min(compiled, total);
  const percent = total > 0 ? Math.floor((shown / total) * 100) : 100;
  const head = `compiled ${shown.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} packages (${percent} %)`;
  if (shown >= total) return `${head}, linking the binaries (${formatDuration(elapsedMs)} so far)…`;
  const remaining = estimateRemainingMs(shown, total, elapsedMs, profile);
  return remaining === undefined
    ? `${head}, ${formatDuration(elapsedMs)} so far`
    : `${head}, about ${formatDuration(remaining)} left`;
}

/**
 * Reports a build's progress. `log` takes whole lines: the ones that are not
 * progress (the compiler's messages) and, off a terminal, the progress
 * itself. On a terminal, other lines are printed above the progress line,
 * which is then drawn again.
 */
export class BuildProgress {
  private phase: 'idle' | 'downloading' | 'compiling' = 'idle';
  private downloaded = 0;
  private compiled = 0;
  private total = 0;
  private phaseStarted = Date.now();
  private lastTenth = -1;
  private lastDraw = 0;
  private drawn = false;
  private ticker: NodeJS.Timeout | undefined;
  private profile: readonly (readonly [number, number])[] | undefined;

  constructor(
    private readonly stream: ProgressStream,
    private readonly log: (line: string) => void,
    private readonly prefix = 'control plane: ',
  ) {}

  private get tty(): boolean {
    return this.stream.isTTY === true;
  }

  /** `go list` is resolving the packages, downloading the modules it lacks. */
  resolving(): void {
    this.enter('downloading');
    this.log(`${this.prefix}listing the packages to build…`);
  }

  /** `go list` downloaded one more module. */
  downloadedOne(): void {
    this.downloaded += 1;
    this.report(false);
  }

  /**
   * Starts counting towards `total` packages. `firstBuild`: nearly every
   * package needs compiling, so the time left follows {@link FIRST_BUILD_PROFILE}.
   */
  compiling(total: number, firstBuild: boolean): void {
    this.profile = firstBuild ? FIRST_BUILD_PROFILE : undefined;
    if (this.downloaded > 0) {
      this.clear();
      this.log(`${this.prefix}downloaded ${this.downloaded} modules in ${formatDuration(this.elapsed())}`);
    }
    this.total = total;
    this.compiled = 0;
    this.lastTenth = -1;
    this.enter('compiling');
    if (total === 0) {
      this.log(`${this.prefix}every package is in Go's build cache; linking the binaries…`);
      return;
    }
    this.report(true);
  }

  /** One more package compiled. */
  compiledOne(): void {
    this.compiled += 1;
    this.report(false);
  }

  /** A line that is not progress. */
  line(text: string): void {
    this.clear();
    this.log(text);
    if (this.drawn) this.draw();
  }

  /** Takes the progress line off the terminal, before the build's last words. */
  finish(): void {
    this.clear();
    this.drawn = false;
    this.phase = 'idle';
    clearInterval(this.ticker);
    this.ticker = undefined;
  }

  private enter(phase: 'downloading' | 'compiling'): void {
    this.phase = phase;
    this.phaseStarted = Date.now();
    // A package such as k8s.io/api/core/v1, or the link at the end, takes
    // tens of seconds: the clock on the line keeps moving meanwhile.
    if (this.tty && !this.ticker) this.ticker = setInterval(() => this.drawn && this.draw(), TICK_MS).unref();
  }

  private elapsed(): number {
    return Date.now() - this.phaseStarted;
  }

  private text(): string {
    if (this.phase === 'downloading') {
      return `${this.prefix}downloading modules: ${this.downloaded} so far, ${formatDuration(this.elapsed())}`;
    }
    return this.prefix + describeProgress(this.compiled, this.total, this.elapsed(), this.profile);
  }

  private report(force: boolean): void {
    // Nothing to count: only linking is left, which compiling() said.
    if (this.phase === 'compiling' && this.total === 0) return;
    if (this.tty) {
      const now = Date.now();
      if (!force && now - this.lastDraw < REDRAW_INTERVAL_MS && this.compiled < this.total) return;
      this.lastDraw = now;
      this.drawn = true;
      this.draw();
      return;
    }
    // Off a terminal, downloads are summed up in one line when they end.
    if (this.phase !== 'compiling') return;
    const tenth = this.total > 0 ? Math.floor((Math.min(this.compiled, this.total) / this.total) * 10) : 10;
    if (tenth === this.lastTenth) return;
    this.lastTenth = tenth;
    this.log(this.text());
  }

  private draw(): void {
    const width = this.stream.columns ? this.stream.columns - 1 : Infinity;
    this.stream.write(`\r\x1b[2K${this.text().slice(0, width)}`);
  }

  private clear(): void {
    if (this.tty && this.drawn) this.stream.write('\r\x1b[2K');
  }
}
