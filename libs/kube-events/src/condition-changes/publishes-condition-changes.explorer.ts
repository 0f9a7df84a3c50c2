import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { LibraryLogger } from '../text/library-logger.js';
import type { EventRecorder } from '../recorder/event-recorder.js';
import { findRecorders, type RecorderName } from '../recorder/recorder-registry.js';
import { PUBLISHES_CONDITION_CHANGES_METADATA } from '../kube-events.constants.js';
import { NO_DEFAULT_RECORDER, REQUEST_SCOPED_SKIPPED, UNKNOWN_RECORDER } from '../kube-events.messages.js';
import { ConditionChangeReporter } from './condition-change-reporter.js';
import { attachConditionReporters } from './condition-reporters.js';
import {
  conditionChangesInactiveExplained,
  type PublishesConditionChangesOptions,
} from './publishes-condition-changes.decorator.js';

const DECORATOR = '@PublishesConditionChanges';

/**
 * Finds the provider methods decorated with `@PublishesConditionChanges`
 * when the application starts, and gives every instance of each provider a
 * {@link ConditionChangeReporter} per decorated method, with the recorder
 * its options name: the decorated method finds it through `this` at each
 * call. One explorer serves every recorder of the application.
 */
@Injectable()
export class PublishesConditionChangesExplorer implements OnModuleInit {
  private readonly logger = new LibraryLogger('PublishesConditionChanges');

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
      const reporters = new Map<string, ConditionChangeReporter>();
      for (const methodName of this.scanner.getAllMethodNames(prototype)) {
        const method = (prototype as Record<string, unknown>)[methodName] as (...args: unknown[]) => unknown;
        const options = this.reflector.get<PublishesConditionChangesOptions | undefined>(
          PUBLISHES_CONDITION_CHANGES_METADATA,
          method,
        );
        if (!options) continue;
        const label = `${prototype.constructor.name}.${methodName}`;
        if (!wrapper.isDependencyTreeStatic()) {
          this.logger.warn(REQUEST_SCOPED_SKIPPED(String(wrapper.name), DECORATOR));
          conditionChangesInactiveExplained(method);
          continue;
        }
        const recorder = recorderFor(recorders, options, label);
        reporters.set(methodName, new ConditionChangeReporter(label, recorder, this.logger, options));
      }
      if (reporters.size === 0) continue;
      for (const each of instancesOf(wrapper)) attachConditionReporters(each, reporters);
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

function recorderFor(
  recorders: Map<RecorderName, EventRecorder>,
  options: PublishesConditionChangesOptions,
  label: string,
): EventRecorder {
  const recorder = recorders.get(options.recorder ?? null);
  if (recorder) return recorder;
  throw new Error(
    options.recorder === undefined
      ? NO_DEFAULT_RECORDER(label, DECORATOR)
      : UNKNOWN_RECORDER(options.recorder, label, DECORATOR),
  );
}
