import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../support/opentelemetry-absent.ts', import.meta.url));
/** Each test starts a Node.js that compiles the library's sources: slow on a busy machine. */
const CHILD_TIMEOUT_MS = 60_000;

interface Report {
  loadedByImport: number;
  loaded: number;
  asked: string[];
  events: { name: string; annotations?: Record<string, string> }[];
}

/** Runs the script in a fresh Node.js, where nothing else has loaded OpenTelemetry. */
async function publishInChild(...flags: string[]): Promise<Report> {
  const { stdout } = await run(process.execPath, ['--import', '@swc-node/register/esm-register', SCRIPT, ...flags], {
    cwd: ROOT,
    timeout: CHILD_TIMEOUT_MS,
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Report;
}

describe('without OpenTelemetry', () => {
  it(
    'publishes as before when @opentelemetry/api is not installed, having asked for it once and loaded nothing of it',
    async () => {
      const report = await publishInChild('--hide-opentelemetry');

      expect(report.asked).toEqual(['@opentelemetry/api']);
      expect(report.loaded).toBe(0);
      expect(report.events).toHaveLength(1);
      expect(report.events[0].annotations).toBeUndefined();
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'loads @opentelemetry/api only once a recorder that traces is built, never when the library is imported',
    async () => {
      const report = await publishInChild();

      expect(report.loadedByImport).toBe(0);
      expect(report.loaded).toBeGreaterThan(0);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'loads nothing of OpenTelemetry, although installed, with traceContext and writeSpans off',
    async () => {
      const report = await publishInChild('--tracing-off');

      expect(report.loaded).toBe(0);
      expect(report.events).toHaveLength(1);
    },
    CHILD_TIMEOUT_MS,
  );
});
