import { truncateText } from '../event-rules/note-truncation.js';
import type { PermissionCheck, PermissionState } from '../permissions/permission-check.js';
import type { EventWritesFlow } from '../api/event-writes-flow.js';
import type { EventRecorder } from '../recorder/event-recorder.js';

/** The API server as the recorder's writes last found it. */
export type ServerHealth =
  | {
      /** The last write got an answer, or none was tried yet. */
      readonly reachable: true;
    }
  | {
      /** The last writes could not reach it. */
      readonly reachable: false;
      /** Since when no connection could be made (the first failed attempt). */
      readonly since: Date;
      /** Why, as the rejected publishes say it: bounded, with no credential. */
      readonly why: string;
    };

/** The kubeconfig's credentials as the recorder's writes last found them. */
export type CredentialsHealth =
  | {
      /** No write found them failing. */
      readonly working: true;
    }
  | {
      /** The kubeconfig gave no credentials for the last writes. */
      readonly working: false;
      /** Since when they fail. */
      readonly since: Date;
      /** Why: which authenticator or plugin failed and how, never what it printed. */
      readonly why: string;
    };

/** One recorder's state, as {@link KubeEventsHealth.state} reads it. */
export interface KubeEventsHealthState {
  /**
   * Whether Events can be written, as far as the recorder knows: the
   * credentials working, the server not unreachable for longer than the
   * recorder's timeout, and a permission for `create`, `get` or `patch` not
   * found missing in every namespace the recorder publishes to. A
   * permission that could not be checked does not count, nor one missing
   * where no publish goes (a warning), nor one missing in some of the
   * namespaces published to but not the others (`degraded`).
   */
  readonly writable: boolean;
  /** Why Events cannot be written, one sentence each; empty while `writable`. */
  readonly problems: readonly string[];
  /**
   * What holds some Events back while others are written, one sentence
   * each: the server throttling the writes (`throttled`), occurrences
   * queued to retry a failed write (`occurrences.retrying`), a right
   * missing in some of the namespaces published to but not in the others.
   * `KubeEventsHealthIndicator` reports `degraded` while it is not empty
   * and the Events are `writable`.
   */
  readonly degraded: readonly string[];
  /**
   * Whether the API server throttles the writes: it answered some with
   * `429` or `503` lately, and the recorder writes below its configured
   * rate until the server admits them again.
   */
  readonly throttled: boolean;
  /**
   * Rights missing where the recorder has not published (the kubeconfig's
   * namespace, reviewed at start-up): they stop nothing yet, and would stop
   * a publish that went there.
   */
  readonly warnings: readonly string[];
  /** The API server reachable, or since when not and why. */
  readonly server: ServerHealth;
  /** The credentials working, or since when not and why. */
  readonly credentials: CredentialsHealth;
  /** What the permission check found. */
  readonly permissions: PermissionState;
  /** What waits to be written, and what was given up. */
  readonly occurrences: {
    /** Occurrences waiting to be written now (those in flight included). */
    readonly queued: number;
    /** Of those, the occurrences whose write failed, queued to be retried. */
    readonly retrying: number;
    /** Occurrences given up since start (no room, past their window, or unwritten at shutdown). */
    readonly dropped: number;
  };
  /**
   * Where API Priority and Fairness put the recorder's Event writes, from
   * the server's last answer to one (`X-Kubernetes-PF-FlowSchema-UID` and
   * `-PriorityLevel-UID`); `undefined` before the first answer. With the
   * shipped `flow-control/event-writes.yaml`, these are its uids.
   */
  readonly flow: EventWritesFlow | undefined;
}

/** The verbs whose lack stops Events from being written; `list` only stops `resumeSeries`. */
const WRITE_VERBS: ReadonlySet<string> = new Set(['create', 'get', 'patch']);

/** The most of an error's message the state carries, in UTF-8 bytes. */
const MAX_WHY_BYTES = 1024;

/**
 * The health of one recorder, read as one object: the API server reachable
 * or not (since when, why), the credentials working or not, the
 * permissions found missing, and the occurrences queued and dropped.
 * `KubeEventsModule` provides one per recorder: inject it by its class for
 * the default recorder, or with `getKubeEventsHealthToken(name)` for a named
 * one. `KubeEventsHealthIndicator` (`nestjs-kube-events/terminus`) reports it
 * to `@nestjs/terminus`.
 *
 * The server's and the credentials' state change with the recorder's
 * writes: after an outage, the first write that gets an answer makes the
 * server reachable again.
 *
 * @example
 * const { writable, problems } = app.get(KubeEventsHealth).state();
 */
export class KubeEventsHealth {
  private dropped = 0;

  /**
   * `KubeEventsModule` builds one per recorder.
   * @internal
   */
  constructor(
    private readonly recorder: EventRecorder,
    private readonly permissions: PermissionCheck,
    private readonly writesFlow: () => EventWritesFlow | undefined = () => undefined,
  ) {
    recorder.outcomes$.subscribe((outcome) => {
      if (outcome.kind === 'dropped') this.dropped += outcome.count;
    });
  }

  /** The recorder's state now. */
  state(): KubeEventsHealthState {
    const down = this.recorder.connectionDown;
    const why = down && truncateText(down.why.message, MAX_WHY_BYTES);
    const server: ServerHealth =
      down?.kind === 'unreachable' ? { reachable: false, since: new Date(down.since), why: why! } : { reachable: true };
    const credentials: CredentialsHealth =
      down?.kind === 'unauthenticated' ? { working: false, since: new Date(down.since), why: why! } : { working: true };
    const permissions = this.permissions.state;
    const problems: string[] = [];
    const degraded: string[] = [];
    const warnings: string[] = [];
    const stopped: string[] = [];
    for (const { namespace, verbs, published } of permissions.missing) {
      const missing = verbs.filter((verb) => WRITE_VERBS.has(verb));
      if (!missing.length) continue;
      const line = `may not ${missing.join(', ')} events.k8s.io events in namespace ${JSON.stringify(namespace)}`;
      if (published) stopped.push(line);
      else warnings.push(`${line}, where nothing was published yet`);
    }
    // Stopped in some namespaces published to, not in all: the others still get their Events.
    if (stopped.length < permissions.publishedNamespaces) degraded.push(...stopped);
    else problems.push(...stopped);
    const throttled = this.recorder.throttled;
    if (throttled) degraded.push('the API server throttles the writes (429 or 503): they go below the configured rate');
    const retrying = this.recorder.retryingOccurrences;
    if (retrying > 0) degraded.push(`${retrying} occurrence(s) wait queued to retry a failed write`);
    if (!credentials.working) problems.push(`the credentials fail: ${credentials.why}`);
    if (!server.reachable && Date.now() - server.since.getTime() > this.recorder.timeout)
      problems.push(`the API server has been unreachable since ${server.since.toISOString()}: ${server.why}`);
    return {
      writable: problems.length === 0,
      problems,
      degraded,
      warnings,
      throttled,
      server,
      credentials,
      permissions,
      occurrences: { queued: this.recorder.queuedOccurrences, retrying, dropped: this.dropped },
      flow: this.writesFlow(),
    };
  }
}
