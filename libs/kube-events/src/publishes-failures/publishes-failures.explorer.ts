import { Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { EventRecorder } from '../recorder/event-recorder.js';
import { withFailureEvents, type OutagesLogged } from './failure-reporting.js';
import { standInOf, type PublishesFailuresOptions } from './publishes-failures.decorator.js';
import { MAX_FIELD_LENGTH, PUBLISHES_FAILURES_METADATA } from '../kube-events.constants.js';
import {
  INVALID_RECOVERY_OPTION,
  NO_DEFAULT_RECORDER,
  REQUEST_SCOPED_SKIPPED,
  UNKNOWN_RECORDER,
} from '../kube-events.messages.js';
import { findRecorders, type RecorderName } from '../recorder/recorder-registry.js';

/**
 * Finds the provider methods decorated with `@PublishesFailures` when the
 * application starts and wraps each, on every instance of the provider,
 * with the recorder its options name. One explorer serves every recorder of
 * the process. It wraps the decorated method itself, past the decorator's
 * stand-in (which forwards references taken earlier to this wrapper), and
 * keeps the metadata of what is on the prototype.
 */
@Injectable()
export class PublishesFailuresExplorer implements OnModuleInit {
  private readonly logger = new Logger('PublishesFailures');
  /** The outage each recorder last logged as unreachable, shared by every method wrapped here. */
  private readonly outagesLogged: OutagesLogged = new WeakMap();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const providers = this.discovery.getProviders();
    const recorders = findRecorders(providers);
    for (const wrapper of providers) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || typeof instance !== 'object') continue;
      const prototype = Object.getPrototypeOf(instance) as object;
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const method = (prototype as Record<string, unknown>)[methodName] as (...args: unknown[]) => unknown;
        const options = this.reflector.get<PublishesFailuresOptions | undefined>(PUBLISHES_FAILURES_METADATA, method);
        if (!options) continue;
        const label = `${prototype.constructor.name}.${methodName}`;
        if (!wrapper.isDependencyTreeStatic()) {
          this.logger.warn(REQUEST_SCOPED_SKIPPED(String(wrapper.name)));
          const standIn = standInOf(method);
          if (standIn) standIn.warned = true;
          continue;
        }
        const recorder = recorderFor(recorders, options, label);
        checkRecovery(options, label);
        const reporting = { recorder, logger: this.logger, outagesLogged: this.outagesLogged };
        // The decorated method itself, past its stand-in; or what a decorator above it made of it.
        const target = standInOf(method)?.method ?? method;
        for (const each of instancesOf(wrapper)) {
          each[methodName] = withFailureEvents(target, label, reporting, options, method);
        }
      }
    }
  }
}

/** Every instance of a provider: one, or for a transient provider, the one each consumer was given as well. */
function instancesOf(wrapper: InstanceWrapper): Record<string, unknown>[] {
  const instances = new Set([wrapper.instance as Record<string, unknown>]);
  if (wrapper.isTransient) {
    for (const each of wrapper.getStaticTransientInstances())
      if (each?.instance) instances.add(each.instance as Record<string, unknown>);
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
