// Watches a test's event loop from a thread of its own, for stalls no timeout of the test can end.
import { Worker } from 'node:worker_threads';

/** How often the test's thread says it is alive. */
const HEARTBEAT_MS = 500;
/** How long the watchdog waits for the test's thread to pause and show where it is. */
const STACK_WAIT_MS = 2_000;

/**
 * The watchdog's thread, as plain JavaScript (it runs outside Jest's
 * transform). With no heartbeat for `limitMs` it writes, straight to file
 * descriptor 2 (a worker's `process.stderr` goes through the blocked thread),
 * what the test said it was doing and the call stack it spins in, read by
 * pausing the test's thread through the inspector; then it kills the
 * process, since nothing in it can run any more.
 */
const WATCHDOG = `
const { parentPort, workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { Session } = require('node:inspector');
let lastBeat = Date.now();
let doing = 'nothing yet';
parentPort.on('message', (message) => {
  lastBeat = Date.now();
  if (typeof message === 'string') doing = message;
});
function stackOfTestThread() {
  return new Promise((resolve) => {
    const session = new Session();
    try {
      session.connectToMainThread();
    } catch (error) {
      resolve('(no stack: ' + error.message + ')');
      return;
    }
    const timer = setTimeout(() => resolve('(no stack: the thread did not pause)'), workerData.stackWaitMs);
    session.on('Debugger.paused', ({ params }) => {
      clearTimeout(timer);
      resolve(
        params.callFrames
          .slice(0, 20)
          .map((frame) => '    at ' + (frame.functionName || '<anonymous>') + ' (' + frame.url + ':' + (frame.location.lineNumber + 1) + ')')
          .join('\\n'),
      );
    });
    session.post('Debugger.enable', () => session.post('Debugger.pause'));
  });
}
const check = setInterval(async () => {
  const blocked = Date.now() - lastBeat;
  if (blocked < workerData.limitMs) return;
  clearInterval(check);
  const stack = await stackOfTestThread();
  writeSync(
    2,
    '\\n' + workerData.title + ': the event loop has been blocked for ' + Math.round(blocked / 1000) + ' s, so no timeout can end it.\\n' +
      doing + '\\nWhere the thread spins (generated code):\\n' + stack + '\\n',
  );
  process.kill(process.pid, 'SIGKILL');
}, Math.min(1000, workerData.limitMs / 4));
`;

/**
 * Ends a test process whose event loop is blocked (a synchronous loop, or
 * promises that resolve into each other for ever): there, no timer fires,
 * so neither the test's own limits nor Jest's timeout can end it, and it
 * would hang without a word. Once the loop has not turned for `limitMs`,
 * a thread of its own prints what the test last said it was doing
 * ({@link EventLoopWatchdog.doing}) and where the loop spins, then kills the
 * process, which fails the test command. Keeps nothing alive.
 */
export class EventLoopWatchdog {
  private readonly heartbeat: NodeJS.Timeout;

  private constructor(private readonly worker: Worker) {
    this.heartbeat = setInterval(() => worker.postMessage(undefined), HEARTBEAT_MS);
    this.heartbeat.unref();
    worker.unref();
  }

  /** Starts watching; `title` opens the report of a stall. */
  static start(title: string, limitMs: number): EventLoopWatchdog {
    return new EventLoopWatchdog(
      new Worker(WATCHDOG, { eval: true, workerData: { title, limitMs, stackWaitMs: STACK_WAIT_MS } }),
    );
  }

  /** What the test does now (what to run to replay it): a stall report says it. */
  doing(text: string): void {
    this.worker.postMessage(text);
  }

  /** Stops watching. */
  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    await this.worker.terminate();
  }
}
