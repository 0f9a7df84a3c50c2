import { createRequire } from 'node:module';

/** Loads a module by name, synchronously: `require`, or a stand-in in tests. */
export type ModuleLoader = (name: string) => unknown;

const requireFromHere = createRequire(import.meta.url);

/**
 * An optional peer dependency, or `undefined` when it is not installed.
 * Loaded synchronously, when a recorder that uses it is built, so that the
 * first publish already sees the application's spans; never at import time.
 * The OpenTelemetry API keeps its state (providers, context manager) on
 * `globalThis`, so this copy and the application's share it.
 */
export function loadOptional<T>(name: string, load: ModuleLoader = requireFromHere): T | undefined {
  try {
    return load(name) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException | null)?.code === 'MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}
