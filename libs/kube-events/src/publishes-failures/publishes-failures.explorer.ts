import { Injectable, type OnModuleInit } from '@nestjs/common';
import { LibraryLogger } from '../text/library-logger.js';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { EventRecorder } from '../recorder/event-recorder.js';
import { FailureReporter, type OutagesLogged } from './failure-reporting.js';
import { attachReporters } from './method-reporters.js';
import { inactiveExplained, type PublishesFailuresOptions } from './publishes-failures.decorator.js';
import { MAX_FIELD_LENGTH, PUBLISHES_FAILURES_METADATA } from '../kube-events.constants.js';
import {
  INVALID_RECOVERY_OPTION,
  NO_DEFAULT_RECORDER,
  REQUEST_SCOPED_SKIPPED,
  UNKNOWN_RECORDER,
} from '../kube-events.messages.js';
import { findRecorders, type RecorderName } from '../recorder/recorder-registry.js';
import { loadOpenTelemetryApi, type OpenTelemetryApi } from '../tracing/opentelemetry-api.js';

/**
 * Finds the provider methods decorated with `@PublishesFailures` when the
 * application starts, checks their options, and gives every instance of
 * each provider a {@link FailureReporter} per decorated method, with the
 * recorder its options name: the decorated method finds it through `this`
 * at each call. One explorer serves every recorder of the application, and
 * owns what its reporters share (the outages they logged).
 */
@Injectable()
export class PublishesFailuresExplorer implements OnModuleInit {
  private readonly logger = new LibraryLogger('PublishesFailures');
  /** The outage each recorder last logged as unreachable, shared by every reporter made here. */
  private readonly outagesLogged: OutagesLogged = new WeakMap();
  /** The OpenTelemetry API, loaded once the first method with `traceLink` is found. */
  private openTelemetry: OpenTelemetryApi | undefined;

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const providers = this.discovery.getProviders();
    const recorders = findRecorders(providers);
    for (const wrapper of providers) {
      const instance = wrapper.instance as object | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      const reporters = new Map<string, FailureReporter>();
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const method = (prototype as Record<string, unknown>)[methodName] as (...args: unknown[]) => unknown;
        const options = this.reflector.get<PublishesFailuresOptions | undefined>(PUBLISHES_FAILURES_METADATA, method);
        if (!options) continue;
        const label = `${prototype.constructor.name}.${methodName}`;
        if (!wrapper.isDependencyTreeStatic()) {
          this.logger.warn(REQUEST_SCOPED_SKIPPED(String(wrapper.name)));
          inactiveExplained(method);
          continue;
        }
        const recorder = recorderFor(recorders, options, label);
        checkRecovery(options, label);
        const reporting = {
          recorder,
          logger: this.logger,
          outagesLogged: this.outagesLogged,
          ...(options.traceLink && { openTelemetry: (this.openTelemetry ??= loadOpenTelemetryApi()) }),
        };
        reporters.set(methodName, new FailureReporter(label, reporting, options));
      }
      if (reporters.size === 0) continue;
      for (const each of instancesOf(wrapper)) attachReporters(each, reporters);
    }
  }
}

/** Every instance of a provider: one, or for a transient provider, the one each consumer was given as well. */
function instancesOf(wrapper: InstanceWrapper): object[] {
  const instances = new Set([wrapper.instance as object]);
  if (wrapper.isTransient) {
    for (const each of wrapper.getStaticTransientInstances())
      if (each?.instance) instances.add(each.instance as object);
  }
  return [...instances];
}

function recorderFor(recorders: Map<RecorderName, EventRecorder>, options: PublishesFailuresOptions, label: string) {
  const recorder = recorders.get(options.recorder ?? null);
  if (recorder) return recorder;
  throw new Error(
    options.recorder === undefined ? NO_DEFAULT_RECORDER(label) : UNKNOWN_RECORDER(options.recorder, label),
  );
}

/** Fails start-up on a `recovery` option the recorder would refuse on every success. */
function checkRecovery({ recovery }: PublishesFailuresOptions, label: string): void {
  if (recovery === undefined || typeof recovery === 'boolean') return;
  if (typeof recovery !== 'object' || recovery === null)
    throw new Error(INVALID_RECOVERY_OPTION(label, 'must be a boolean or { reason?: string }'));
  const { reason } = recovery;
  if (reason === undefined) return;
  if (typeof reason !== 'string' || !reason || reason.length > MAX_FIELD_LENGTH)
    throw new Error(INVALID_RECOVERY_OPTION(label, `reason must be a string of 1 to ${MAX_FIELD_LENGTH} characters`));
}
