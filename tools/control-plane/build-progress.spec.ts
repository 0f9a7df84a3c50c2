import { jest } from '@jest/globals';
import { BuildProgress, describeProgress, estimateRemainingMs, FIRST_BUILD_PROFILE } from './build-progress.js';

class Stream {
  written = '';
  constructor(
    readonly isTTY: boolean,
    readonly columns?: number,
  ) {}
  write(text: string) {
    this.written += text;
  }
}

describe('build progress', () => {
  afterEach(() => jest.useRealTimers());

  it('says how many packages are compiled, the share, and the time left', () => {
    expect(describeProgress(812, 2311, 60_000)).toBe('compiled 812 of 2,311 packages (35 %), about 1 min 51 s left');
    expect(describeProgress(2311, 2311, 470_000)).toBe(
      'compiled 2,311 of 2,311 packages (100 %), linking the binaries (7 min 50 s so far)…',
    );
  });

  it('gives no estimate before a twentieth of the packages', () => {
    expect(describeProgress(50, 2311, 10_000)).toBe('compiled 50 of 2,311 packages (2 %), 10 s so far');
  });

  it('on a first build, expects the later packages to take longer than the first', () => {
    // Half the packages after 135 s: the linear estimate says 135 s more, the profile more than twice that.
    const linear = estimateRemainingMs(1155, 2310, 135_000)!;
    const profiled = estimateRemainingMs(1155, 2310, 135_000, FIRST_BUILD_PROFILE)!;
    expect(Math.round(linear / 1000)).toBe(135);
    expect(profiled).toBeGreaterThan(2 * linear);
  });

  it('off a terminal, logs a line per tenth of the build, not one per package', () => {
    const lines: string[] = [];
    const stream = new Stream(false);
    const progress = new BuildProgress(stream, (line) => lines.push(line));
    progress.compiling(2311, true);
    for (let i = 0; i < 2311; i++) progress.compiledOne();
    progress.finish();
    expect(stream.written).toBe('');
    expect(lines).toHaveLength(11);
    expect(lines[0]).toMatch(/^control plane: compiled 0 of 2,311 packages \(0 %\)/);
    expect(lines[10]).toMatch(/^control plane: compiled 2,311 of 2,311 packages \(100 %\), linking/);
  });

  it('off a terminal, sums up the module downloads in one line', () => {
    const lines: string[] = [];
    const progress = new BuildProgress(new Stream(false), (line) => lines.push(line));
    progress.resolving();
    for (let i = 0; i < 300; i++) progress.downloadedOne();
    progress.compiling(10, false);
    expect(lines[0]).toBe('control plane: listing the packages to build…');
    expect(lines[1]).toMatch(/^control plane: downloaded 300 modules in \d+ s$/);
    expect(lines).toHaveLength(3);
  });

  it('says so when every package is in the build cache, rather than counting to zero', () => {
    const lines: string[] = [];
    const stream = new Stream(true);
    const progress = new BuildProgress(stream, (line) => lines.push(line));
    progress.compiling(0, false);
    progress.compiledOne(); // a main package, printed by go build -v once it is linked
    progress.finish();
    expect(lines).toEqual(["control plane: every package is in Go's build cache; linking the binaries…"]);
    expect(stream.written).toBe('');
  });

  it('on a terminal, rewrites one line, cut to its width, and prints other lines above it', () => {
    jest.useFakeTimers();
    const lines: string[] = [];
    const stream = new Stream(true, 40);
    const progress = new BuildProgress(stream, (line) => {
      stream.write(`${line}\n`);
      lines.push(line);
    });
    progress.compiling(100, false);
    jest.advanceTimersByTime(1_000);
    progress.compiledOne();
    progress.line('  some/pkg: a compiler warning');
    progress.finish();
    expect(lines).toEqual(['  some/pkg: a compiler warning']);
    const drawn = stream.written.split('\r\x1b[2K').filter(Boolean);
    expect(drawn.every((text) => text.length <= 39 || text.endsWith('\n'))).toBe(true);
    expect(drawn).toContain('control plane: compiled 1 of 100 packag');
    // The warning is printed on a cleared line, then the progress line comes back; finish clears it.
    // eslint-disable-next-line no-control-regex -- the terminal's escape codes are what this checks
    expect(stream.written).toMatch(/\r\x1b\[2K {2}some\/pkg: a compiler warning\n\r\x1b\[2Kcontrol plane: /);
    expect(stream.written.endsWith('\r\x1b[2K')).toBe(true);
  });
});
