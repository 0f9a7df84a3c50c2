import { Injectable, type OnModuleInit } from '@nestjs/common';
import { LibraryLogger } from '../text/library-logger.js';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { FailureReporter, type OutagesLogged } from './failure-reporting.js';
import { serveDecoratedMethods } from '../decorated-methods/decorated-providers.js';
import { failureReportedMethods, type PublishesFailuresOptions } from './publishes-failures.decorator.js';
import { MAX_FIELD_LENGTH, PUBLISHES_FAILURES_METADATA } from '../kube-events.constants.js';
import { INVALID_RECOVERY_OPTION } from '../kube-events.messages.js';
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
    serveDecoratedMethods<PublishesFailuresOptions>(
      { discovery: this.discovery, scanner: this.scanner, reflector: this.reflector },
      {
        metadata: PUBLISHES_FAILURES_METADATA,
        decorator: '@PublishesFailures',
        methods: failureReportedMethods,
        logger: this.logger,
        reporterFor: ({ label, recorder, options }) => {
          checkRecovery(options, label);
          const reporting = {
            recorder,
            logger: this.logger,
            outagesLogged: this.outagesLogged,
            ...(options.traceLink && { openTelemetry: (this.openTelemetry ??= loadOpenTelemetryApi()) }),
          };
          return new FailureReporter(label, reporting, options);
        },
      },
    );
  }
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
