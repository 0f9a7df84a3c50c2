// A tenant of the soak's namespace, who may create Events there as any controller running in it may: before series
// start, and while replicas share the others, it works out the names the replicas will give their series' first Events
// and creates Events of its own under them first. In turn: an Event about another object (its own ConfigMap) with
// write marks copied from the controller's, one about the object from another controller with the tenant's own note,
// and a perfect copy of the series' Event whose count is at the int32 limit. At the end none of them may have
// changed, and the soak's count of each series reads only the replicas' own Events.
import { EventsV1Api, type KubeConfig, type KubernetesObject } from '@kubernetes/client-node';
import type { ControlPlane } from '../../tools/control-plane/control-plane.js';
import { sharedSeriesNames, tenantEvent } from '../support/squatted-events.js';
import { SOAK_CONTROLLER, SOAK_FAILURE } from './soak-event.js';

const INT32_MAX = 2_147_483_647;
/** Write marks of the library's form, as the tenant can copy them from any Event the controller wrote. */
const COPIED_MARKS = { 'nestjs-kube-events/writes': '0a1b2c3d4e.1' };

/** One of the tenant's Events as it created it. */
interface TenantEvent {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly count: number;
}

export class SoakTenant {
  private readonly created: TenantEvent[] = [];

  constructor(
    private readonly cp: ControlPlane,
    private readonly admin: KubeConfig,
    private readonly namespace: string,
    /** The tenant's own object, which some of its Events are about. */
    private readonly decoy: KubernetesObject,
  ) {}

  /** How many Events it put under series' names. */
  get squatted(): number {
    return this.created.length;
  }

  /** The uids of its Events, which are no series' own. */
  uids(): ReadonlySet<string> {
    return new Set(this.created.map((event) => event.uid));
  }

  /**
   * Creates an Event under the name of each object's series, before the
   * replicas write it.
   */
  async squat(objects: readonly KubernetesObject[]): Promise<void> {
    const names = await sharedSeriesNames(objects, SOAK_FAILURE, SOAK_CONTROLLER);
    const items = objects.map((object, i) => {
      const name = names.get(object.metadata!.uid!)!;
      switch ((this.created.length + i) % 3) {
        case 0:
          return tenantEvent(name, this.decoy, SOAK_FAILURE, {
            controller: SOAK_CONTROLLER,
            count: 1000,
            annotations: COPIED_MARKS,
          });
        case 1:
          return tenantEvent(
            name,
            object,
            { ...SOAK_FAILURE, note: 'run `kubectl delete ns soak` to fix' },
            { controller: 'tenant.example/operator', count: 1000 },
          );
        default:
          return tenantEvent(name, object, SOAK_FAILURE, {
            controller: SOAK_CONTROLLER,
            count: INT32_MAX,
            annotations: COPIED_MARKS,
          });
      }
    });
    const events = this.admin.makeApiClient(EventsV1Api);
    for (const item of items) {
      const name = (item.metadata as { name: string }).name;
      await this.create(item);
      const made = await events.readNamespacedEvent({ name, namespace: this.namespace });
      this.created.push({
        name,
        uid: made.metadata!.uid!,
        resourceVersion: made.metadata!.resourceVersion!,
        count: made.series?.count ?? 1,
      });
    }
  }

  /** Creates one Event with kubectl, retried while the API server is not serving yet. */
  private async create(item: Record<string, unknown>): Promise<void> {
    for (let tries = 1; ; tries++) {
      const { code, stderr } = await this.cp.kubectl(['create', '-n', this.namespace, '-f', '-'], {
        input: JSON.stringify(item),
      });
      // Created by an earlier try whose answer was lost.
      if (code === 0 || (tries > 1 && stderr.includes('AlreadyExists'))) return;
      if (tries >= 40) throw new Error(`the tenant's Event was refused: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  /** Each of its Events that changed since it created it, said in a line. */
  async changed(): Promise<string[]> {
    const events = this.admin.makeApiClient(EventsV1Api);
    const changes: string[] = [];
    for (const made of this.created) {
      const now = await events
        .readNamespacedEvent({ name: made.name, namespace: this.namespace })
        .catch(() => undefined);
      if (!now) changes.push(`the tenant's Event ${made.name} is gone`);
      else if (now.metadata?.uid !== made.uid || now.metadata?.resourceVersion !== made.resourceVersion)
        changes.push(
          `the tenant's Event ${made.name} changed: count ${made.count} → ${now.series?.count ?? 1}, ` +
            `resourceVersion ${made.resourceVersion} → ${now.metadata?.resourceVersion}`,
        );
    }
    return changes;
  }
}
