import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { LibraryLogger } from '../text/library-logger.js';
import { PUBLISHES_CONDITION_CHANGES_METADATA } from '../kube-events.constants.js';
import { serveDecoratedMethods } from '../decorated-methods/decorated-providers.js';
import { ConditionChangeReporter } from './condition-change-reporter.js';
import {
  conditionReportedMethods,
  type PublishesConditionChangesOptions,
} from './publishes-condition-changes.decorator.js';

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
    serveDecoratedMethods<PublishesConditionChangesOptions>(
      { discovery: this.discovery, scanner: this.scanner, reflector: this.reflector },
      {
        metadata: PUBLISHES_CONDITION_CHANGES_METADATA,
        decorator: '@PublishesConditionChanges',
        methods: conditionReportedMethods,
        logger: this.logger,
        reporterFor: ({ label, recorder, options }) =>
          new ConditionChangeReporter(label, recorder, this.logger, options),
      },
    );
  }
}
