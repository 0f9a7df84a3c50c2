import { ConfigurableModuleBuilder } from '@nestjs/common';
import type { KubeEventsModuleOptions } from '../kube-events.interfaces.js';

/** Options of `forRoot`/`forRootAsync` that shape the module rather than the recorder. */
export interface KubeEventsModuleExtras {
  /**
   * Makes the recorder injectable in every module without importing this one:
   * import `forRoot` once, in the root module, rather than in each feature
   * module (which would register the same recorder twice).
   * @default false
   */
  isGlobal?: boolean;
  /**
   * Registers a named recorder, for a process that runs several controllers:
   * inject it with `@InjectEventRecorder(name)` and target it with
   * `@PublishesFailures({ recorder: name })`. Without a name the recorder is
   * the default one, injected by its class.
   */
  name?: string;
}

export const {
  ConfigurableModuleClass: ConfigurableKubeEventsModule,
  MODULE_OPTIONS_TOKEN: KUBE_EVENTS_MODULE_OPTIONS,
  OPTIONS_TYPE: KUBE_EVENTS_OPTIONS_TYPE,
  ASYNC_OPTIONS_TYPE: KUBE_EVENTS_ASYNC_OPTIONS_TYPE,
} = new ConfigurableModuleBuilder<KubeEventsModuleOptions>({ moduleName: 'KubeEvents' })
  .setClassMethodName('forRoot')
  .setFactoryMethodName('createKubeEventsOptions')
  .setExtras<KubeEventsModuleExtras>({ isGlobal: false, name: undefined }, (definition, extras) => ({
    ...definition,
    global: extras.isGlobal,
  }))
  .build();
