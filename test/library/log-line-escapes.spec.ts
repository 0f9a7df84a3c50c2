import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import type { KubernetesObject } from '@kubernetes/client-node';
import { EventRecorder, PublishesFailures } from 'nestjs-kube-events';
import type { FakeApiServer } from '../support/fake-api-server/index.js';
import { configMap, syncFailed } from '../support/objects.js';
import { startLoggingApplication } from '../support/logging-application.js';

/** What a terminal acts on: clear the screen, return to the line's start, start a line, CSI, reverse the text. */
const HOSTILE = 'ok\u001b[2J\u001b[31m\rFAKE outcome=created\nsecond line\u009b1m\u202eright-to-left\u0007';
// eslint-disable-next-line no-control-regex -- control characters are what must not reach a log line
const RAW_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

@Injectable()
class HostileReconciler {
  @PublishesFailures()
  async reconcile(object: KubernetesObject): Promise<void> {
    await Promise.resolve(object);
    throw new Error(`could not sync: ${HOSTILE}`);
  }
}

describe('log lines with text from outside', () => {
  let server: FakeApiServer;
  let app: TestingModule;
  let lines: string[];

  beforeEach(async () => {
    ({ server, app, lines } = await startLoggingApplication([HostileReconciler]));
  });
  afterEach(async () => {
    await app.close();
    await server.close();
    jest.restoreAllMocks();
  });

  it("escapes control characters of a note and an object's name in the log sink's line", async () => {
    const recorder = app.get(EventRecorder);
    const object = { ...configMap(), metadata: { ...configMap().metadata, name: `app${HOSTILE}` } };
    await recorder.publish(object, { ...syncFailed, note: HOSTILE }).catch(() => undefined);

    const outcome = lines.filter((line) => line.startsWith('outcome='));
    expect(outcome).toHaveLength(1);
    expect(outcome[0]).not.toMatch(RAW_CONTROL);
    expect(outcome[0]).toContain(String.raw`\u001b[2J`);
    expect(outcome[0]).toContain(String.raw`\u009b1m\u202eright-to-left`);
  });

  it("escapes control characters of a server's refusal in the log sink's line and of a failure in the library's own", async () => {
    const recorder = app.get(EventRecorder);
    server.failNext(422, 'POST', 'Invalid', `Event is invalid: ${HOSTILE}`);
    await expect(recorder.publish(configMap('refused'), syncFailed)).rejects.toThrow(/422/);
    server.failNext(400, 'POST', 'BadRequest', `denied ${HOSTILE}`);
    await app
      .get(HostileReconciler)
      .reconcile(configMap('reconciled'))
      .catch(() => undefined);
    await recorder.flush();

    expect(lines.filter((line) => line.startsWith('outcome=failed'))).toHaveLength(2);
    expect(lines.some((line) => line.startsWith('Could not publish the failure'))).toBe(true);
    expect(lines.filter((line) => RAW_CONTROL.test(line))).toEqual([]);
  });
});
