import {
  EventsV1Api,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
  type KubeConfig,
  type KubernetesObject,
} from '@kubernetes/client-node';
import type { KubeEvent } from 'nestjs-kube-events';

/**
 * The plain design the write control is measured against: one write per
 * publish, serialised per object, as a hand-rolled recorder (or client-go's
 * core/v1 recorder) does: a create, then a PATCH with count + 1 for every
 * repeat.
 */
export class PlainRecorder {
  private readonly api: EventsV1Api;
  private readonly series = new Map<string, { tail: Promise<void>; name?: string; count: number }>();

  constructor(
    kubeConfig: KubeConfig,
    private readonly controller: string,
  ) {
    this.api = kubeConfig.makeApiClient(EventsV1Api);
  }

  publish(resource: KubernetesObject, event: KubeEvent): Promise<void> {
    const uid = resource.metadata!.uid!;
    let series = this.series.get(uid);
    if (!series) this.series.set(uid, (series = { tail: Promise.resolve(), count: 0 }));
    const state = series;
    const run = state.tail.then(() => this.write(resource, event, state));
    state.tail = run.catch(() => undefined);
    return run;
  }

  private async write(
    resource: KubernetesObject,
    event: KubeEvent,
    state: { name?: string; count: number },
  ): Promise<void> {
    const namespace = resource.metadata!.namespace ?? 'default';
    const now = new V1MicroTime();
    if (state.name) {
      await this.api.patchNamespacedEvent(
        { name: state.name, namespace, body: { series: { count: state.count + 1, lastObservedTime: now } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
      state.count++;
      return;
    }
    const created = await this.api.createNamespacedEvent({
      namespace,
      body: {
        metadata: { name: `${resource.metadata!.name}.${process.hrtime.bigint().toString(16)}`, namespace },
        eventTime: now,
        type: event.type,
        reason: event.reason,
        action: event.action,
        note: event.note,
        regarding: {
          apiVersion: resource.apiVersion,
          kind: resource.kind,
          name: resource.metadata!.name,
          namespace,
          uid: resource.metadata!.uid,
        },
        reportingController: this.controller,
        reportingInstance: this.controller,
      },
    });
    state.name = created.metadata!.name;
    state.count = 1;
  }
}
