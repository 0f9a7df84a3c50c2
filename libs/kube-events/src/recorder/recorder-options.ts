import {
  DEFAULT_CLUSTER_SCOPED_NAMESPACE,
  DEFAULT_COMBINE_SIMILAR_EVENTS,
  DEFAULT_WRITE_CONTROL,
  DEFAULT_MAX_SERIES,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_TRACE_CONTEXT_PREFIX,
  MAX_FIELD_LENGTH,
  SERIES_WINDOW_MS,
} from '../kube-events.constants.js';
import type {
  ClusterScopedEventNamespace,
  KubeEventsClock,
  KubeEventsModuleOptions,
  ResolvedRecorderOptions,
  ResolvedTracingOptions,
  ResolvedWriteControl,
} from '../kube-events.interfaces.js';
import {
  DEFAULT_INSTANCE_TOO_LONG,
  FIELD_TOO_LONG,
  INSTANCE_NOT_A_STRING,
  INVALID_OPTIONS,
  NOT_A_BOOLEAN,
  NOT_A_CLOCK,
  NOT_A_CLUSTER_SCOPED_NAMESPACE,
  NOT_A_KUBE_CONFIG,
  NOT_A_NOTE_REDACTOR,
  NOT_A_PERMISSION_CHECK,
  NOT_A_SIMILAR_EVENTS_LIMIT,
  NOT_A_POSITIVE_INTEGER,
  NOT_A_POSITIVE_NUMBER,
  NOT_A_QUALIFIED_NAME,
  NOT_AN_ANNOTATION_PREFIX,
  REPORTER_NOT_AN_OBJECT,
  TRACE_CONTEXT_NOT_AN_OPTION,
  REQUIRED_FIELD,
} from '../kube-events.messages.js';
import { CLUSTER_SCOPED_EVENT_NAMESPACES } from '../api/event-body.js';
import { isDnsSubdomain, isQualifiedName } from '../event-rules/qualified-name.js';
import { isClock, systemClock } from '../time/system-clock.js';
import { redactCredentials } from '../text/credential-redaction.js';

const unchanged = (note: string): string => note;

function similarEventsLimit(option: unknown, fail: (field: string, problem: string) => never): number | false {
  if (option === undefined) return DEFAULT_COMBINE_SIMILAR_EVENTS;
  if (option === false || (Number.isSafeInteger(option) && (option as number) >= 2)) return option as number | false;
  return fail('combineSimilarEvents', NOT_A_SIMILAR_EVENTS_LIMIT(option));
}

/** `redactNotes` as the function every note goes through. */
function noteRedactor(
  option: KubeEventsModuleOptions['redactNotes'],
  fail: (field: string, problem: string) => never,
): (note: string) => string {
  if (option === undefined || option === true) return redactCredentials;
  if (option === false) return unchanged;
  if (typeof option === 'function') return option;
  return fail('redactNotes', NOT_A_NOTE_REDACTOR(option));
}

/** The options {@link resolveRecorderOptions} returned: given again, they are returned as they are. */
const resolvedOptions = new WeakSet<object>();

/**
 * Checks a recorder's options and applies the defaults. Throws at start-up
 * with a message naming the bad field, so a misconfigured controller never
 * runs with a recorder whose every Event the API server would refuse.
 *
 * An empty `reporter.instance` counts as unset, as `instance: process.env.POD_NAME`
 * gives when `POD_NAME` is set but empty: the instance is then the controller name.
 *
 * Options it returned come back unchanged (they are frozen), so that every
 * part of a recorder reads the same resolved options, however many times
 * they are resolved.
 */
export function resolveRecorderOptions(
  options: KubeEventsModuleOptions | ResolvedRecorderOptions | undefined,
): ResolvedRecorderOptions {
  if (options !== undefined && resolvedOptions.has(options)) return options as ResolvedRecorderOptions;
  const fail = (field: string, problem: string): never => {
    throw new Error(INVALID_OPTIONS(field, problem));
  };
  const given: Partial<KubeEventsModuleOptions> = options ?? {};
  const reporter: unknown = given.reporter;
  if (!reporter || typeof reporter !== 'object') fail('reporter', REPORTER_NOT_AN_OBJECT(reporter));
  const { controller, instance } = reporter as KubeEventsModuleOptions['reporter'];
  if (typeof controller !== 'string' || controller === '')
    fail('reporter.controller', REQUIRED_FIELD('reporter.controller'));
  if (!isQualifiedName(controller))
    fail('reporter.controller', NOT_A_QUALIFIED_NAME('reporter.controller', controller));
  if (instance !== undefined && typeof instance !== 'string')
    fail('reporter.instance', INSTANCE_NOT_A_STRING(instance));
  // The instance defaults to the controller name, which may be longer than the server takes for an instance.
  const resolvedInstance = instance || controller;
  const instanceBytes = Buffer.byteLength(resolvedInstance);
  if (instanceBytes > MAX_FIELD_LENGTH) {
    fail(
      'reporter.instance',
      instance ? FIELD_TOO_LONG('reporter.instance', instanceBytes) : DEFAULT_INSTANCE_TOO_LONG(instanceBytes),
    );
  }
  const positive = (field: string, value: unknown): number => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
      fail(field, NOT_A_POSITIVE_NUMBER(field, value));
    return value as number;
  };
  const count = (field: string, value: unknown): number => {
    if (!Number.isSafeInteger(value) || (value as number) < 1) fail(field, NOT_A_POSITIVE_INTEGER(field, value));
    return value as number;
  };
  const flag = (field: string, value: unknown): boolean => {
    if (typeof value !== 'boolean') fail(field, NOT_A_BOOLEAN(field, value));
    return value as boolean;
  };
  const kubeConfig: unknown = given.kubeConfig;
  if (kubeConfig !== undefined && !isKubeConfig(kubeConfig)) fail('kubeConfig', NOT_A_KUBE_CONFIG(kubeConfig));
  const control = { ...DEFAULT_WRITE_CONTROL, ...given.writeControl };
  const writeControl: ResolvedWriteControl = {
    objectBurst: count('writeControl.objectBurst', control.objectBurst),
    objectRefillMs: positive('writeControl.objectRefillMs', control.objectRefillMs),
    maxDelay: positive('writeControl.maxDelay', control.maxDelay),
    qps: positive('writeControl.qps', control.qps),
    burst: count('writeControl.burst', control.burst),
    maxPending: count('writeControl.maxPending', control.maxPending),
    maxPendingBytes: count('writeControl.maxPendingBytes', control.maxPendingBytes),
  };
  const resolved: ResolvedRecorderOptions = Object.freeze({
    reporter: Object.freeze({ controller, instance: resolvedInstance }),
    timeout: positive('timeout', given.timeout ?? DEFAULT_TIMEOUT_MS),
    seriesWindow: positive('seriesWindow', given.seriesWindow ?? SERIES_WINDOW_MS),
    maxSeries: count('maxSeries', given.maxSeries ?? DEFAULT_MAX_SERIES),
    writeControl: Object.freeze(writeControl),
    resumeSeries: flag('resumeSeries', given.resumeSeries ?? false),
    clusterScopedNamespace: clusterScopedNamespace(given.clusterScopedNamespace, fail),
    traceContext: resolveTraceContext(given.traceContext, fail),
    writeSpans: flag('writeSpans', given.writeSpans ?? true),
    combineSimilarEvents: similarEventsLimit(given.combineSimilarEvents, fail),
    redactNote: noteRedactor(given.redactNotes, fail),
    clock: recorderClock(given.clock, fail),
    kubeConfig: given.kubeConfig,
    permissionCheck: permissionCheckMode(given.permissionCheck, fail),
    logEvents: flag('logEvents', given.logEvents ?? false),
    logRecords: flag('logRecords', given.logRecords ?? false),
    metrics: flag('metrics', given.metrics ?? true),
  });
  resolvedOptions.add(resolved);
  return resolved;
}

/** `clock`: the one given, or the real one. */
function recorderClock(value: unknown, fail: (field: string, problem: string) => never): KubeEventsClock {
  if (value === undefined) return systemClock;
  if (!isClock(value)) fail('clock', NOT_A_CLOCK(value));
  return value;
}

/** `clusterScopedNamespace`: one of the namespaces the API server takes for Events about cluster-scoped objects. */
function clusterScopedNamespace(
  value: unknown,
  fail: (field: string, problem: string) => never,
): ClusterScopedEventNamespace {
  if (value === undefined) return DEFAULT_CLUSTER_SCOPED_NAMESPACE;
  if (!CLUSTER_SCOPED_EVENT_NAMESPACES.includes(value as ClusterScopedEventNamespace))
    fail('clusterScopedNamespace', NOT_A_CLUSTER_SCOPED_NAMESPACE(value, CLUSTER_SCOPED_EVENT_NAMESPACES));
  return value as ClusterScopedEventNamespace;
}

/** `traceContext`: `true` or unset for the default prefix, `false` for none, or `{ prefix }`. */
function resolveTraceContext(
  value: unknown,
  fail: (field: string, problem: string) => never,
): ResolvedTracingOptions['traceContext'] {
  if (value === false) return false;
  if (value === undefined || value === true) return { prefix: DEFAULT_TRACE_CONTEXT_PREFIX };
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail('traceContext', TRACE_CONTEXT_NOT_AN_OPTION(value));
  const prefix: unknown = (value as { prefix?: unknown }).prefix ?? DEFAULT_TRACE_CONTEXT_PREFIX;
  // The prefix of an annotation key, as the API server checks it.
  if (typeof prefix !== 'string' || !isDnsSubdomain(prefix))
    fail('traceContext.prefix', NOT_AN_ANNOTATION_PREFIX('traceContext.prefix', prefix));
  return { prefix: prefix };
}

/** `permissionCheck`, checked: `'warn'` when unset. */
function permissionCheckMode(
  value: unknown,
  fail: (field: string, problem: string) => never,
): ResolvedRecorderOptions['permissionCheck'] {
  if (value === undefined) return 'warn';
  if (value === 'warn' || value === 'fail' || value === 'off') return value;
  return fail('permissionCheck', NOT_A_PERMISSION_CHECK(value));
}

/** Whether `value` works as a client-node KubeConfig (which another copy of client-node may have made). */
function isKubeConfig(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { getCurrentCluster?: unknown }).getCurrentCluster === 'function'
  );
}
