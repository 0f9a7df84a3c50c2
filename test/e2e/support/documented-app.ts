import { mkdir } from 'node:fs/promises';
import { expect } from '@jest/globals';
import { join } from 'node:path';
import type { EventsV1Event } from '@kubernetes/client-node';
import { sharedControlPlane } from '../../../tools/control-plane/control-plane.js';
import { filesOf } from '../../support/documented-files.js';
import type { GeneratedApp, Ran } from './generated-app.js';
import type { Scratch } from './library-fixtures.js';
import type { AppFiles } from './nest-templates.js';

/**
 * What a reader pastes into a new app: the Quick start's files (README.md), docs/testing.md's unit test of its
 * reconciler, and the page's AppModule with its e2e test.
 */
export async function documentedFiles(): Promise<AppFiles> {
  const files: AppFiles = Object.fromEntries(await filesOf('README.md', 'Quick start'));
  const unitTest = (await filesOf('docs/testing.md', 'A unit test')).get('src/config-map.reconciler.spec.ts');
  if (!unitTest) throw new Error('docs/testing.md gives no src/config-map.reconciler.spec.ts');
  return {
    ...files,
    'src/config-map.reconciler.spec.ts': unitTest,
    ...Object.fromEntries(await filesOf('docs/testing.md', 'Testing the AppModule')),
  };
}

/**
 * The built Quick start run as it says (`node dist/main.js <namespace> <name>`), against a ConfigMap without
 * data.replicas on the shared control plane: what it printed, and the Events about the ConfigMap.
 */
export async function runQuickStart(
  app: GeneratedApp,
  scratch: Scratch,
  name: string,
): Promise<{ ran: Ran; events: EventsV1Event[] }> {
  const configMap = await scratch.configMap(name);
  const ran = await app.node(
    [join(app.directory, 'dist/main.js'), configMap.metadata!.namespace!, configMap.metadata!.name!],
    { KUBECONFIG: sharedControlPlane().kubeconfigPath },
    60_000,
  );
  return { ran, events: await scratch.eventsAbout(configMap) };
}

/**
 * What a Quick start run as `name` publishes about its ConfigMap, as a matcher: the Warning of its failed
 * reconciles counted 3 times in one Event, and the Normal of its checks.
 */
export function quickStartEvents(name: string) {
  return expect.arrayContaining([
    expect.objectContaining({
      type: 'Warning',
      reason: 'ReconcileFailed',
      note: `data.replicas is missing in ${name}`,
      reportingController: 'example.com/config-checker',
      series: expect.objectContaining({ count: 3 }),
    }),
    expect.objectContaining({ type: 'Normal', reason: 'Checked', action: 'Check', note: 'checked 3 times' }),
  ]);
}

/**
 * The environment of a machine without a cluster: no kubeconfig anywhere the library looks, with `home` (an
 * empty folder it makes) as the home folder.
 */
export async function noCluster(home: string): Promise<NodeJS.ProcessEnv> {
  await mkdir(home, { recursive: true });
  return { HOME: home, KUBECONFIG: undefined, KUBERNETES_SERVICE_HOST: undefined };
}
