import { LibraryLogger } from '../text/library-logger.js';

/** Publishes what one call of a decorated method did. */
export interface MethodReporter {
  /** Calls `method` on `self` with `args`, publishes what it did, and returns (or throws) what it did. */
  call(method: (...args: unknown[]) => unknown, self: unknown, args: unknown[]): unknown;
}

/** The reporters of an instance's decorated methods, by method name. */
export type MethodReporters = ReadonlyMap<string | symbol, MethodReporter>;

/** How a method decorator that publishes through the instance names itself. */
export interface ReportedMethodsOptions {
  /** The decorator's name in kebab case, for the keys it keeps on instances and methods: `publishes-failures`. */
  readonly id: string;
  /** The decorator's name as log lines give it: `PublishesFailures`. */
  readonly name: string;
  /** What a decorated method says, once, when it runs on an instance no application serves. */
  readonly inactive: (method: string) => string;
}

type Method = (...args: unknown[]) => unknown;

/** Whether a decorated method has said that it is not active, or the module has said why (a request-scoped provider). */
interface InactiveNotice {
  said: boolean;
}

/**
 * The methods of one decorator that publish through the instance they run
 * on: the decorator replaces the method on the prototype, once, and the
 * replacement finds at each call, through `this`, the reporter the module
 * gave the instance when the application initialised. On an instance no
 * application serves, the method runs as written and says once that it
 * publishes nothing. Each decorator keeps its own keys, so that two may
 * serve one instance, even one method.
 */
export class ReportedMethods {
  private readonly reporters: symbol;
  private readonly inactiveNotice: symbol;

  constructor(private readonly options: ReportedMethodsOptions) {
    this.reporters = Symbol(`KUBE_EVENTS:${options.id}:reporters`);
    this.inactiveNotice = Symbol(`KUBE_EVENTS:${options.id}:inactive-notice`);
  }

  /**
   * Puts the replacement in place of the method; it keeps the method's
   * `this`, arguments, result, name, length and metadata.
   */
  replaceMethod(): MethodDecorator {
    return (target, key, descriptor) => {
      const method = descriptor.value as unknown as Method;
      const owner = typeof target === 'function' ? target.name : target.constructor.name;
      const notice: InactiveNotice = { said: false };
      const { name, inactive } = this.options;
      const reporterOf = (self: unknown) => this.reporterOf(self, key);
      const replacement = function (this: unknown, ...args: unknown[]): unknown {
        const reporter = reporterOf(this);
        if (reporter) return reporter.call(method, this, args);
        if (!notice.said) {
          notice.said = true;
          new LibraryLogger(name).warn(inactive(`${owner}.${String(key)}`));
        }
        return method.apply(this, args);
      };
      Object.defineProperty(replacement, 'name', { value: method.name });
      Object.defineProperty(replacement, 'length', { value: method.length });
      Object.defineProperty(replacement, this.inactiveNotice, { value: notice });
      // Decorators applied before this one recorded their metadata on the method itself.
      for (const metadataKey of Reflect.getOwnMetadataKeys(method)) {
        Reflect.defineMetadata(metadataKey, Reflect.getOwnMetadata(metadataKey, method), replacement);
      }
      descriptor.value = replacement as typeof descriptor.value;
    };
  }

  /**
   * Hands an instance Nest created the reporters of its decorated methods, in
   * a property of its own that no enumeration shows, where the decorated
   * method finds them through `this`. A later application that provides the
   * same object replaces them.
   */
  attach(instance: object, reporters: MethodReporters): void {
    Object.defineProperty(instance, this.reporters, { value: reporters, configurable: true });
  }

  /** The reporter of the method `key` of `instance`, or `undefined` when no application gave it one. */
  reporterOf(instance: unknown, key: string | symbol): MethodReporter | undefined {
    if (typeof instance !== 'object' || instance === null) return undefined;
    return (instance as Record<symbol, MethodReporters | undefined>)[this.reporters]?.get(key);
  }

  /** Spares a decorated method its "not active" warning: the module has logged why it serves none of its instances. */
  inactiveExplained(method: unknown): void {
    const notice = (method as Record<symbol, InactiveNotice | undefined> | undefined)?.[this.inactiveNotice];
    if (notice) notice.said = true;
  }
}
