import { DependenciesScanner } from '@nestjs/core/scanner.js';
import type { Type } from '@nestjs/common';

/** One `overrideModule(moduleToReplace).useModule(newModule)` of a testing module, as Nest's scanner holds it. */
interface ModuleOverride {
  moduleToReplace: unknown;
  newModule: unknown;
}

/** The scanner's lookup of an import's override (private in its types, the same in Nest 11 and 12). */
interface OverrideLookup {
  getOverrideModuleByModule: (
    this: unknown,
    module: unknown,
    overrides: ModuleOverride[],
  ) => ModuleOverride | undefined;
}

/**
 * Makes `Test.createTestingModule(…).overrideModule(moduleClass)` also
 * replace the dynamic modules that `moduleClass.forRoot(…)` and
 * `forRootAsync(…)` return, wherever the application imports them.
 *
 * Nest matches an override to an import by identity, and a dynamic module is
 * a new object per call, so the override of the class alone would miss the
 * import an application writes (nestjs/nest#11967). Only the imports of
 * `moduleClass` are matched this way; other modules keep Nest's own rule.
 */
export function overrideWithModuleClass(moduleClass: Type): void {
  const scanner = DependenciesScanner.prototype as unknown as OverrideLookup;
  const lookup = scanner.getOverrideModuleByModule;
  // A Nest release without this lookup keeps its own rule rather than fail every application's start-up.
  if (typeof lookup !== 'function') return;
  scanner.getOverrideModuleByModule = function (module, overrides) {
    const found = lookup.call(this, module, overrides);
    if (found || !overrides.length || !isDynamicModuleOf(module, moduleClass)) return found;
    return lookup.call(this, moduleClass, overrides);
  };
}

function isDynamicModuleOf(module: unknown, moduleClass: Type): boolean {
  return typeof module === 'object' && module !== null && (module as { module?: unknown }).module === moduleClass;
}
