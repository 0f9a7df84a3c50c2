// The library in a plain script (a Job, a CLI): publishes awaited at top
// level, held back by the write budget, no flush() and no shutdown. The
// script must run to its end, with every awaited occurrence on the server,
// and then exit by itself.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { sharedControlPlane } from '../../tools/control-plane/control-plane.js';
import { Scratch, scratchPerTest } from './support/library-fixtures.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

// qps 2, burst 1: after the first write, each publish waits about half a second for the budget.
const SCRIPT = `
import { KubeConfig } from '@kubernetes/client-node';
import { EventRecorder } from 'nestjs-kube-events';

const kubeConfig = new KubeConfig();
kubeConfig.loadFromFile(process.env.SCRIPT_KUBECONFIG);
const recorder = new EventRecorder({
  reporter: { controller: 'kube-events.e2e/script' },
  kubeConfig,
  timeout: 20000,
  writeControl: { qps: 2, burst: 1 },
});
for (const object of JSON.parse(process.env.SCRIPT_OBJECTS)) {
  await recorder.publish(object, { type: 'Normal', reason: 'Migrated', action: 'Migrate', note: 'migrated by the script' });
}
console.log('every publish resolved');
`;

describe('a script that awaits its publishes', () => {
  let scratch: Scratch;
  scratchPerTest('script-e2e', (created) => (scratch = created));

  it('stays alive while a publish waits for the budget, then exits by itself long before the timeout', async () => {
    const objects = await Promise.all(['one', 'two', 'three'].map((name) => scratch.configMap(name)));
    const started = Date.now();
    const { stdout } = await run(process.execPath, ['--input-type=module', '--eval', SCRIPT], {
      cwd: ROOT,
      env: {
        ...process.env,
        SCRIPT_KUBECONFIG: sharedControlPlane().kubeconfigPath,
        SCRIPT_OBJECTS: JSON.stringify(objects),
      },
      timeout: 60_000,
    });

    expect(stdout).toContain('every publish resolved');
    // Nothing keeps the process alive once every publish has settled: not the 20 s publish timeout.
    expect(Date.now() - started).toBeLessThan(15_000);
    for (const object of objects) {
      const events = await scratch.eventsAbout(object);
      expect(events.map((event) => [event.reason, event.series?.count ?? 1])).toEqual([['Migrated', 1]]);
    }
  });
});
