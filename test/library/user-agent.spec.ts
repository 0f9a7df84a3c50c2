// The User-Agent of the library's requests, as the fake API server receives them: what an audit log or the API
// server's metrics see, so that an operator tells the recorder's writes apart from the controller's own requests.
import { readFileSync } from 'node:fs';
import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { EventRecorder, KubeEventsModule } from 'nestjs-kube-events';
import type { FakeApiServer } from '../support/fake-api-server/index.js';
import { recordersPerTest } from '../support/fake-server-recorders.js';
import { eventually } from '../support/eventually.js';
import { configMap, syncFailed } from '../support/objects.js';

const { version } = JSON.parse(
  readFileSync(new URL('../../libs/kube-events/package.json', import.meta.url), 'utf8'),
) as { version: string };

describe('the User-Agent of the library’s requests', () => {
  let server: FakeApiServer;
  const { recorderWith } = recordersPerTest((started) => (server = started));

  it('names the package, its version and the reporting controller on every Event write', async () => {
    const recorder = recorderWith({ reporter: { controller: 'example.com/widgets' } });
    await recorder.publish(configMap('app'), syncFailed);
    await recorder.publish(configMap('app'), syncFailed);

    expect(server.requests.map((request) => [request.method, request.headers['user-agent']])).toEqual([
      ['POST', `nestjs-kube-events/${version} (example.com/widgets)`],
      ['PATCH', `nestjs-kube-events/${version} (example.com/widgets)`],
    ]);
    // No tracing SDK is registered here: the writes carry no trace context.
    for (const request of server.requests) expect(request.headers).not.toHaveProperty('traceparent');
  });

  it('gives the access reviews and the readiness probe of KubeEventsModule the same one', async () => {
    server.answerAccessReviews(() => ({ allowed: false }));
    const app = await Test.createTestingModule({
      imports: [KubeEventsModule.forRoot({ reporter: { controller: 'widgets' }, kubeConfig: server.kubeConfig() })],
    }).compile();
    await app.init();
    try {
      await app.get(EventRecorder).publish(configMap('app'), syncFailed);
      await server.waitForAccessReviews(6);

      await eventually('the readiness probe', () => server.requestHeaders.some(({ path }) => path === '/readyz'));
      const received = server.requestHeaders;
      const paths = new Set(received.map(({ path }) => path.replace(/\/namespaces\/.*/, '')));
      expect(paths).toEqual(
        new Set([
          '/apis/events.k8s.io/v1',
          '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
          '/apis/authentication.k8s.io/v1/selfsubjectreviews',
          '/readyz',
        ]),
      );
      expect(new Set(received.map(({ headers }) => headers['user-agent']))).toEqual(
        new Set([`nestjs-kube-events/${version} (widgets)`]),
      );
    } finally {
      await app.close();
    }
  });
});
