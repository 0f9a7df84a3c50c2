import type { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { LibraryLogger } from '../text/library-logger.js';
import type { EventRecorder } from '../recorder/event-recorder.js';
import { findRecorders, type RecorderName } from '../recorder/recorder-registry.js';
import { NO_DEFAULT_RECORDER, REQUEST_SCOPED_SKIPPED, UNKNOWN_RECORDER } from '../kube-events.messages.js';
import type { MethodReporter, ReportedMethods } from './reported-methods.js';

/** One decorated method of a provider, with the options its decorator recorded and the recorder they name. */
export interface DecoratedMethod<Options> {
  /** `Class.method`, as messages name it. */
  readonly label: string;
  readonly options: Options;
  readonly recorder: EventRecorder;
}

/** What a decorator's explorer looks for among the providers, and what it gives each method found. */
export interface DecoratedMethodsSearch<Options> {
  /** The metadata key under which the decorator records its options. */
  readonly metadata: string;
  /** The decorator as messages name it: `@PublishesFailures`. */
  readonly decorator: string;
  readonly methods: ReportedMethods;
  readonly logger: LibraryLogger;
  /** The reporter of one method; it may throw, to fail start-up on options the recorder would refuse. */
  readonly reporterFor: (method: DecoratedMethod<Options>) => MethodReporter;
}

/** The Nest services through which an explorer walks the application's providers. */
export interface ProviderServices {
  readonly discovery: DiscoveryService;
  readonly scanner: MetadataScanner;
  readonly reflector: Reflector;
}

/**
 * Finds the provider methods carrying the decorator's options when the
 * application starts, and gives every instance of each provider a reporter
 * per decorated method, with the recorder its options name: the decorated
 * method finds it through `this` at each call. A request-scoped provider is
 * skipped with a warning; a recorder the options name but no module
 * provides fails start-up.
 */
export function serveDecoratedMethods<Options extends { readonly recorder?: string }>(
  { discovery, scanner, reflector }: ProviderServices,
  search: DecoratedMethodsSearch<Options>,
): void {
  const { metadata, decorator, methods, logger, reporterFor } = search;
  const providers = discovery.getProviders();
  const recorders = findRecorders(providers);
  for (const wrapper of providers) {
    const instance = wrapper.instance as object | undefined;
    if (!instance || typeof instance !== 'object') continue;
    const prototype = Object.getPrototypeOf(instance) as object;
    const reporters = new Map<string, MethodReporter>();
    for (const methodName of scanner.getAllMethodNames(prototype)) {
      const method = (prototype as Record<string, unknown>)[methodName] as (...args: unknown[]) => unknown;
      const options = reflector.get<Options | undefined>(metadata, method);
      if (!options) continue;
      const label = `${prototype.constructor.name}.${methodName}`;
      if (!wrapper.isDependencyTreeStatic()) {
        logger.warn(REQUEST_SCOPED_SKIPPED(String(wrapper.name), decorator));
        methods.inactiveExplained(method);
        continue;
      }
      const recorder = recorderFor(recorders, options.recorder, label, decorator);
      reporters.set(methodName, reporterFor({ label, options, recorder }));
    }
    if (reporters.size === 0) continue;
    for (const each of instancesOf(wrapper)) methods.attach(each, reporters);
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
  name: string | undefined,
  label: string,
  decorator: string,
): EventRecorder {
  const recorder = recorders.get(name ?? null);
  if (recorder) return recorder;
  throw new Error(
    name === undefined ? NO_DEFAULT_RECORDER(label, decorator) : UNKNOWN_RECORDER(name, label, decorator),
  );
}
