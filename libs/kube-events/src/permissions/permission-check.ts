import { type BeforeApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { LibraryLogger } from '../text/library-logger.js';
import type { EventVerb } from '../api/access-review.js';
import type { EventsWriter } from '../api/events-api.js';
import { truncateText } from '../event-rules/note-truncation.js';
import { errorMessage } from '../text/describe-value.js';
import { PublishApiError } from '../errors.js';
import {
  EVENTS_PERMISSION_GRANTED,
  EVENTS_PERMISSION_MISSING,
  EVENTS_PERMISSION_UNKNOWN,
} from '../kube-events.messages.js';

/** What the permission check does: warn once per finding, fail start-up on a start-up finding, or nothing. */
export type PermissionCheckMode = 'warn' | 'fail' | 'off';

/** Asks the API server whether the recorder's identity may use a verb on Events: `EventsApi` does. */
export interface EventsAccessReviewer {
  mayAccessEvents(verb: EventVerb, namespace: string | undefined, signal: AbortSignal): Promise<boolean>;
  /** Who the reviews run as (a `SelfSubjectReview`), which the warn line names. */
  identity?(signal: AbortSignal): Promise<string | undefined>;
  /** Whether the API server says it is ready (`/readyz`); `true` when it cannot tell. */
  serverReady?(signal: AbortSignal): Promise<boolean>;
}

/** Verbs found missing in one namespace. */
export interface MissingPermission {
  /** The namespace the Events go to. */
  readonly namespace: string;
  /** The verbs on `events` of `events.k8s.io` the identity may not use there. */
  readonly verbs: readonly EventVerb[];
  /**
   * Whether the recorder has sent a request there: a missing right where
   * no publish goes (the kubeconfig's namespace, reviewed at start-up)
   * stops nothing.
   */
  readonly published: boolean;
}

/** A review that could not be made: its answer is unknown, never a denial. */
export interface UnknownPermission {
  /** The namespace reviewed; undefined for the review of every namespace. */
  readonly namespace?: string;
  /** Why the review failed: its status, a timeout, a connection that could not be made. */
  readonly why: string;
}

/** What the permission check knows. */
export interface PermissionState {
  /** `permissionCheck` as configured. */
  readonly mode: PermissionCheckMode;
  /**
   * - `off`: nothing is checked (`permissionCheck: 'off'`, or a writer that cannot review);
   * - `pending`: the start-up review (every namespace, then the kubeconfig's) has not finished yet;
   * - `cluster-wide`: every verb is granted in every namespace, nothing more is reviewed;
   * - `per-namespace`: each namespace is reviewed the first time the recorder writes there;
   * - `unknown`: the API server cannot review (no `SelfSubjectAccessReview` API): nothing more is reviewed.
   */
  readonly scope: 'off' | 'pending' | 'cluster-wide' | 'per-namespace' | 'unknown';
  /** Verbs found missing, by namespace: the most recent findings, at most a few dozen. */
  readonly missing: readonly MissingPermission[];
  /** Reviews that failed, the latest last: at most a few dozen. */
  readonly unknown: readonly UnknownPermission[];
  /** Namespaces the recorder has sent a request to (counted up to the most it reviews). */
  readonly publishedNamespaces: number;
}

/** What a {@link PermissionCheck} checks, for whom. */
export interface PermissionCheckSettings {
  readonly mode: PermissionCheckMode;
  /** The reporter's controller, which the log line names. */
  readonly controller: string;
  /** `create`, `get`, `patch`, and `list` with `resumeSeries`. */
  readonly verbs: readonly EventVerb[];
  /** The kubeconfig context's namespace (in a pod, its ServiceAccount's), reviewed at start-up when cluster-wide is not granted. */
  readonly homeNamespace: string;
  /** How long one review may take, in milliseconds: the recorder's timeout. */
  readonly timeoutMs: number;
}

/** Namespaces reviewed at most: past this, new namespaces are not reviewed (their writes are reported as always). */
const MAX_REVIEWED_NAMESPACES = 1_000;

/** Findings and failed reviews kept for the state, at most. */
const MAX_KEPT = 32;

/** How long after a finding its namespace is reviewed again, so that a Role applied later is seen. */
const RECHECK_MS = 30_000;

/**
 * How long after the server answers again (a restarted kube-apiserver)
 * a 403, or a review's denial, is not believed: its authorizer may still be
 * syncing its RBAC caches and refuse what a Role allows.
 */
const SERVER_START_WINDOW_MS = 10_000;

/**
 * How long the API server's answer to `/readyz` is kept: the denials
 * reviewed meanwhile ask it no more.
 */
const READINESS_KEPT_MS = 5_000;

/**
 * The first pause before a namespace is reviewed again, after a denial the
 * check did not believe (the server not ready) or a 403 it did not
 * confirm; it doubles each time, up to {@link RECHECK_MS}.
 */
const FIRST_REVIEW_BACKOFF_MS = 1_000;

/** The most of a failed review's error the state and the log line carry, in UTF-8 bytes. */
const MAX_WHY_BYTES = 512;

/**
 * The recorder's check of its own RBAC on Events, with
 * `SelfSubjectAccessReview`s (which every authenticated identity may
 * create): at module init it asks whether it may use each verb in every
 * namespace, and when it may not, in its kubeconfig's namespace; then, as
 * long as cluster-wide is not granted, in each other namespace the first
 * time a write goes there, alongside that write. Each finding is said once,
 * in one warn line that names the missing verbs, the namespace and the
 * manifest that grants them; with `fail`, a start-up finding fails
 * start-up with the same message instead.
 *
 * Reviews never delay a publish (they run beside the writes, on
 * connections of their own, each bounded by the recorder's timeout) and a
 * review that fails (an old server, a webhook authorizer that times out,
 * a 5xx) is unknown, never missing. A namespace found missing is reviewed
 * again every {@link RECHECK_MS}, and a write that succeeds there clears
 * the finding.
 *
 * Follow-ups stay few. A denial is a finding once the server says it is
 * ready (`/readyz`), or has said it is not for longer than a server takes
 * to start ({@link SERVER_START_WINDOW_MS}): its answer is kept for
 * {@link READINESS_KEPT_MS}, and one question is asked at a time. Until
 * then the namespace is reviewed again after a pause that doubles from
 * {@link FIRST_REVIEW_BACKOFF_MS}, and so is a namespace where a 403 was
 * not confirmed, at most once per pause, however many writes are refused.
 */
export class PermissionCheck implements OnModuleInit, BeforeApplicationShutdown {
  private scope: PermissionState['scope'];
  private readonly missing = new Map<string, readonly EventVerb[]>();
  private readonly unknown: UnknownPermission[] = [];
  /** Namespaces reviewed or being reviewed: each at most once, but for rechecks. */
  private readonly reviewed = new Set<string>();
  /** Namespaces the recorder has sent a request to, as many as are reviewed. */
  private readonly published = new Set<string>();
  private startup: Promise<MissingPermission | undefined> | undefined;
  private unknownLogged = false;
  /** The review of every namespace answered with a denial, which each finding then says. */
  private clusterDenied = false;
  private readonly rechecks = new Map<string, NodeJS.Timeout>();
  /** When each namespace's finding was made (Date.now): a 403 is final only on a recent one. */
  private readonly foundAt = new Map<string, number>();
  /** Namespaces whose review runs now: a 403 there waits for it rather than asks again. */
  private readonly reviewing = new Set<string>();
  /** Whether the last requests reached no server, and when one got an answer after that (a restarted server). */
  private serverLost = false;
  private answeredAgainAt: number | undefined;
  private readonly stopped = new AbortController();
  /** The server's last answer to `/readyz`, kept for {@link READINESS_KEPT_MS}, and the question asked now. */
  private readiness: { ready: boolean; at: number } | undefined;
  private askingReadiness: Promise<boolean> | undefined;
  /** Since when the server has said it is not ready, without a word that it is. */
  private notReadySince: number | undefined;
  /** Namespaces whose denial was not believed yet (the server not ready), with the pause before their next review. */
  private readonly unconfirmed = new Map<string, number>();
  /** Namespaces reviewed after a 403 the check did not confirm: when the next such review may be, and the pause. */
  private readonly refusalReviews = new Map<string, { nextAt: number; pauseMs: number }>();
  /** Who the reviews run as, as a `SelfSubjectReview` said at start-up. */
  private identity: string | undefined;
  private readonly logger = new LibraryLogger('EventRecorder');

  constructor(
    private readonly reviewer: EventsAccessReviewer | undefined,
    private readonly settings: PermissionCheckSettings,
  ) {
    this.scope = settings.mode === 'off' || !reviewer ? 'off' : 'pending';
    this.reviewed.add(settings.homeNamespace);
  }

  /** What is known now. */
  get state(): PermissionState {
    return {
      mode: this.settings.mode,
      scope: this.scope,
      missing: [...this.missing].map(([namespace, verbs]) => ({
        namespace,
        verbs,
        published: this.published.has(namespace),
      })),
      unknown: [...this.unknown],
      publishedNamespaces: this.published.size,
    };
  }

  /**
   * Starts the start-up review in the background; with `fail`, waits for it
   * and throws the finding's message.
   */
  async onModuleInit(): Promise<void> {
    if (this.scope === 'off') return;
    this.startup = this.reviewAtStartup();
    if (this.settings.mode !== 'fail') return;
    const finding = await this.startup;
    if (finding) throw new Error(this.missingMessage(finding));
  }

  /** Stops the reviews in flight and the rechecks. */
  beforeApplicationShutdown(): void {
    this.stopped.abort();
    for (const timer of this.rechecks.values()) clearTimeout(timer);
    this.rechecks.clear();
  }

  /**
   * `writer` as the recorder uses it: each request into a namespace not
   * reviewed yet starts that namespace's review beside it, and a write
   * that succeeds clears what was found missing there.
   */
  watch(writer: EventsWriter): EventsWriter {
    const seen = (namespace: string) => this.writingIn(namespace);
    const wrote =
      <T>(namespace: string) =>
      (result: T) => {
        this.wroteIn(namespace);
        return result;
      };
    const heard = <T>(request: Promise<T>) =>
      request.then(
        (result) => {
          this.serverAnswered();
          return result;
        },
        (error: unknown) => {
          if (error instanceof PublishApiError && error.statusCode === undefined) this.serverUnreachable();
          else if (error instanceof PublishApiError) this.serverAnswered();
          throw error;
        },
      );
    const watched: EventsWriter = {
      create: (namespace, body, signal, trace) => {
        seen(namespace);
        return heard(writer.create(namespace, body, signal, trace)).then(wrote(namespace));
      },
      read: (namespace, name, signal, trace) => {
        seen(namespace);
        return heard(writer.read(namespace, name, signal, trace));
      },
      patchSeries: (namespace, name, patch, signal, trace) => {
        seen(namespace);
        return heard(writer.patchSeries(namespace, name, patch, signal, trace)).then(wrote(namespace));
      },
      confirmsForbidden: (namespace, verb) => this.confirmsForbidden(namespace, verb),
    };
    if (writer.list) {
      const list = writer.list.bind(writer);
      watched.list = (namespace, query, signal, trace) => {
        seen(namespace);
        return heard(list(namespace, query, signal, trace));
      };
    }
    if (writer.annotate) watched.annotate = writer.annotate.bind(writer);
    if (writer.close) watched.close = writer.close.bind(writer);
    return watched;
  }

  private writingIn(namespace: string): void {
    if (this.published.size < MAX_REVIEWED_NAMESPACES) this.published.add(namespace);
    if (this.scope === 'off' || this.scope === 'cluster-wide' || this.scope === 'unknown') return;
    if (this.reviewed.has(namespace) || this.reviewed.size >= MAX_REVIEWED_NAMESPACES) return;
    this.reviewed.add(namespace);
    void (this.startup ?? Promise.resolve()).then(() =>
      this.scope === 'per-namespace' ? this.reviewNamespace(namespace, false) : undefined,
    );
  }

  /**
   * Whether a 403 to `verb` in `namespace` is final: only when a review
   * of that namespace found the verb missing within the recheck interval,
   * and not while a server that came back may still be syncing its RBAC.
   * Otherwise (allowed when reviewed, not reviewed yet, reviewed long ago,
   * the review failed) the namespace is reviewed again and the 403 is
   * retried, so that a Role that allows the write is not taken for a
   * missing one. With the check off, or no review API, every 403 is final.
   */
  confirmsForbidden(namespace: string, verb: EventVerb): boolean {
    if (this.scope === 'off' || this.scope === 'unknown') return true;
    const now = Date.now();
    const foundAt = this.foundAt.get(namespace);
    const starting = this.answeredAgainAt !== undefined && now - this.answeredAgainAt < SERVER_START_WINDOW_MS;
    const believed =
      this.missing.get(namespace)?.includes(verb) === true &&
      foundAt !== undefined &&
      now - foundAt < RECHECK_MS &&
      !starting &&
      !(this.answeredAgainAt !== undefined && foundAt - this.answeredAgainAt < SERVER_START_WINDOW_MS);
    if (!believed) this.reviewForRefusal(namespace);
    return believed;
  }

  /**
   * Reviews a namespace again after a 403 the check could not confirm, once
   * for a burst of them and at most once per pause, which doubles; not while
   * a review of a denial not believed yet is due there.
   */
  private reviewForRefusal(namespace: string): void {
    if (this.stopped.signal.aborted || this.reviewing.has(namespace) || this.unconfirmed.has(namespace)) return;
    const now = Date.now();
    const last = this.refusalReviews.get(namespace);
    if (last && now < last.nextAt) return;
    const pauseMs = last ? Math.min(RECHECK_MS, last.pauseMs * 2) : FIRST_REVIEW_BACKOFF_MS;
    this.refusalReviews.delete(namespace);
    this.refusalReviews.set(namespace, { nextAt: now + pauseMs, pauseMs });
    if (this.refusalReviews.size > MAX_REVIEWED_NAMESPACES)
      this.refusalReviews.delete(this.refusalReviews.keys().next().value!);
    this.reviewing.add(namespace);
    void (this.startup ?? Promise.resolve())
      .then(() => this.reviewNamespace(namespace, false))
      .finally(() => this.reviewing.delete(namespace));
  }

  private serverUnreachable(): void {
    this.serverLost = true;
  }

  private serverAnswered(): void {
    if (!this.serverLost) return;
    this.serverLost = false;
    this.answeredAgainAt = Date.now();
    // A server that came back (restarted, say) is asked anew whether it is ready.
    this.readiness = undefined;
    this.notReadySince = undefined;
  }

  private wroteIn(namespace: string): void {
    this.refusalReviews.delete(namespace);
    const verbs = this.missing.get(namespace);
    if (!verbs) return;
    // A write that went through shows create or patch; only list stays in doubt.
    const left = verbs.filter((verb) => verb === 'list');
    if (left.length) this.missing.set(namespace, left);
    else this.forgetFinding(namespace);
  }

  /** Every namespace first; when not all is granted there, the kubeconfig's namespace. Returns its finding. */
  private async reviewAtStartup(): Promise<MissingPermission | undefined> {
    const { verbs, homeNamespace } = this.settings;
    const [cluster, identity] = await Promise.all([this.review(undefined, verbs), this.reviewIdentity()]);
    this.identity = identity;
    if (cluster.failure) {
      this.noteUnknown(undefined, cluster.failure);
      if (isUnsupported(cluster.failure)) {
        this.scope = 'unknown';
        return undefined;
      }
    } else if (cluster.denied.length === 0) {
      this.scope = 'cluster-wide';
      return undefined;
    }
    this.clusterDenied = !cluster.failure;
    const finding = await this.reviewNamespace(homeNamespace, true, cluster.failure ? verbs : cluster.denied);
    this.scope = 'per-namespace';
    return finding;
  }

  /** Reviews `namespace`: a finding is kept, said (unless start-up fails with it), and rechecked later. */
  private async reviewNamespace(
    namespace: string,
    atStartup: boolean,
    verbs: readonly EventVerb[] = this.settings.verbs,
  ): Promise<MissingPermission | undefined> {
    if (this.stopped.signal.aborted) return undefined;
    this.reviewing.add(namespace);
    const { denied, failure } = await this.review(namespace, verbs).finally(() => this.reviewing.delete(namespace));
    if (failure) this.noteUnknown(namespace, failure);
    if (!denied.length) {
      // Granted since a finding (a Role applied): the finding goes.
      if (!failure) {
        this.forgetFinding(namespace);
        this.unconfirmed.delete(namespace);
      }
      return undefined;
    }
    // A server that is not ready yet denies what its RBAC grants while its caches sync: that is no finding, yet.
    if (!failure && !(await this.serverReady()) && !this.notReadyForLong()) {
      this.reviewLater(namespace);
      return undefined;
    }
    this.unconfirmed.delete(namespace);
    const finding = { namespace, verbs: denied, published: this.published.has(namespace) };
    const said = this.missing.has(namespace);
    this.keepFinding(finding);
    if (!said && !(atStartup && this.settings.mode === 'fail')) this.logger.warn(this.missingMessage(finding));
    this.scheduleRecheck(namespace);
    return finding;
  }

  /**
   * Reviews `namespace` again after its pause (which doubles each time), or
   * once the server has not been ready for longer than a start takes, if
   * that comes first: a denial then is a finding.
   */
  private reviewLater(namespace: string): void {
    if (this.stopped.signal.aborted) return;
    const pauseMs = Math.min(RECHECK_MS, (this.unconfirmed.get(namespace) ?? FIRST_REVIEW_BACKOFF_MS / 2) * 2);
    this.unconfirmed.delete(namespace);
    this.unconfirmed.set(namespace, pauseMs);
    if (this.unconfirmed.size > MAX_KEPT) this.unconfirmed.delete(this.unconfirmed.keys().next().value!);
    const now = Date.now();
    const believedIn = (this.notReadySince ?? now) + SERVER_START_WINDOW_MS - now;
    this.scheduleRecheck(namespace, Math.max(0, Math.min(pauseMs, believedIn)));
  }

  /** Whether the server has said it is not ready for longer than a server takes to start. */
  private notReadyForLong(): boolean {
    return this.notReadySince !== undefined && Date.now() - this.notReadySince >= SERVER_START_WINDOW_MS;
  }

  private scheduleRecheck(namespace: string, delayMs = RECHECK_MS): void {
    if (this.stopped.signal.aborted) return;
    clearTimeout(this.rechecks.get(namespace));
    const timer = setTimeout(() => {
      this.rechecks.delete(namespace);
      void (this.missing.has(namespace) ? this.recheck(namespace) : this.reviewNamespace(namespace, false));
    }, delayMs);
    timer.unref();
    this.rechecks.set(namespace, timer);
  }

  private async recheck(namespace: string): Promise<void> {
    const verbs = this.missing.get(namespace);
    if (!verbs) return;
    const { denied, failure } = await this.review(namespace, verbs);
    if (!this.missing.has(namespace)) return;
    if (failure || denied.length) {
      if (denied.length) {
        this.missing.set(namespace, denied);
        this.foundAt.set(namespace, Date.now());
      }
      this.scheduleRecheck(namespace);
      return;
    }
    this.forgetFinding(namespace);
    this.logger.log(EVENTS_PERMISSION_GRANTED(this.settings.controller, namespace));
  }

  /** Asks for each verb at once; denied verbs, and the first failure of those that could not be asked. */
  private async review(
    namespace: string | undefined,
    verbs: readonly EventVerb[],
  ): Promise<{ denied: EventVerb[]; failure?: unknown }> {
    const signal = AbortSignal.any([this.stopped.signal, AbortSignal.timeout(this.settings.timeoutMs)]);
    const answers = await Promise.allSettled(
      verbs.map((verb) => this.reviewer!.mayAccessEvents(verb, namespace, signal)),
    );
    const denied = verbs.filter((_, i) => answers[i].status === 'fulfilled' && !answers[i].value);
    const failed = answers.find((answer) => answer.status === 'rejected');
    return failed ? { denied, failure: failed.reason } : { denied };
  }

  /** Whether the server says it is ready: its last answer while kept, else the question asked now (one at a time). */
  private serverReady(): Promise<boolean> {
    if (!this.reviewer?.serverReady) return Promise.resolve(true);
    const kept = this.readiness;
    if (kept && Date.now() - kept.at < READINESS_KEPT_MS) return Promise.resolve(kept.ready);
    if (!this.askingReadiness) {
      const asking = this.askReadiness().finally(() => {
        if (this.askingReadiness === asking) this.askingReadiness = undefined;
      });
      this.askingReadiness = asking;
    }
    return this.askingReadiness;
  }

  private async askReadiness(): Promise<boolean> {
    const signal = AbortSignal.any([this.stopped.signal, AbortSignal.timeout(this.settings.timeoutMs)]);
    const askedAt = Date.now();
    const ready = await this.reviewer!.serverReady!(signal).catch(() => false);
    this.readiness = { ready, at: Date.now() };
    if (ready) this.notReadySince = undefined;
    else this.notReadySince ??= askedAt;
    return ready;
  }

  private keepFinding(finding: MissingPermission): void {
    this.missing.delete(finding.namespace);
    this.missing.set(finding.namespace, finding.verbs);
    this.foundAt.set(finding.namespace, Date.now());
    if (this.missing.size > MAX_KEPT) this.forgetFinding(this.missing.keys().next().value!);
  }

  private forgetFinding(namespace: string): void {
    this.missing.delete(namespace);
    this.foundAt.delete(namespace);
    clearTimeout(this.rechecks.get(namespace));
    this.rechecks.delete(namespace);
  }

  /** A failed review: kept for the state; the first one is said once, at log level. */
  private noteUnknown(namespace: string | undefined, failure: unknown): void {
    if (this.stopped.signal.aborted) return;
    const why = this.describeFailure(failure);
    this.unknown.push(namespace === undefined ? { why } : { namespace, why });
    if (this.unknown.length > MAX_KEPT) this.unknown.shift();
    if (this.unknownLogged) return;
    this.unknownLogged = true;
    const where = namespace === undefined ? 'cluster-wide' : `in namespace ${JSON.stringify(namespace)}`;
    this.logger.log(EVENTS_PERMISSION_UNKNOWN(this.settings.controller, where, why));
  }

  private describeFailure(failure: unknown): string {
    if (failure instanceof PublishApiError && failure.statusCode !== undefined)
      return `the review was answered ${failure.statusCode}${failure.reason ? ` ${failure.reason}` : ''}`;
    // AbortSignal.timeout's reason: a DOMException, of another realm than Error under some test runners.
    if ((failure as { name?: unknown } | undefined)?.name === 'TimeoutError')
      return `no answer within ${this.settings.timeoutMs} ms`;
    return truncateText(errorMessage(failure), MAX_WHY_BYTES);
  }

  /** Who the reviews run as, when the server says (a `SelfSubjectReview`); undefined when it cannot. */
  private async reviewIdentity(): Promise<string | undefined> {
    if (!this.reviewer?.identity) return undefined;
    const signal = AbortSignal.any([this.stopped.signal, AbortSignal.timeout(this.settings.timeoutMs)]);
    return this.reviewer.identity(signal).catch(() => undefined);
  }

  private missingMessage(finding: MissingPermission): string {
    const { controller } = this.settings;
    return EVENTS_PERMISSION_MISSING(controller, this.identity, finding.verbs, finding.namespace, this.clusterDenied);
  }
}

/** A server without the review API (404, 405): no later review would be answered either. */
function isUnsupported(failure: unknown): boolean {
  return failure instanceof PublishApiError && (failure.statusCode === 404 || failure.statusCode === 405);
}
