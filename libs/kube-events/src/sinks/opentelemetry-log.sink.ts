import type { Logger as OtelLogger } from '@opentelemetry/api-logs';
import type { EventSink } from './event-sink.js';
import { LOG_RECORDS_NEED_API_LOGS } from '../kube-events.messages.js';
import type { PublishOutcome } from '../recorder/publish/index.js';
import { k8sEventAttributes } from '../tracing/k8s-event-attributes.js';
import { loadOpenTelemetryApi, type OpenTelemetryApi } from '../tracing/opentelemetry-api.js';
import { loadOpenTelemetryLogsApi, type OpenTelemetryLogsApi } from '../tracing/opentelemetry-logs-api.js';
import type { ModuleLoader } from '../tracing/optional-module.js';
import { INSTRUMENTATION_SCOPE } from '../tracing/recorder-tracing.js';
import { parseTraceparent } from '../tracing/traceparent.js';

/** The log record attribute that says what became of the publish: `created`, `patched`, `coalesced`, `failed`, `dropped`. */
const OUTCOME_ATTRIBUTE = 'kube_events.outcome';
/** The occurrences an outcome that is not a write (coalesced, failed, dropped) is about. */
const OCCURRENCES_ATTRIBUTE = 'kube_events.occurrences';

/**
 * The built-in OpenTelemetry log sink, switched on by the `logRecords`
 * option: one log record per outcome through `@opentelemetry/api-logs`,
 * shaped as the collector's `k8s_events` receiver shapes its records (the
 * note as body, the Event's type as severity, `k8s.event.*`,
 * `k8s.namespace.name` and `k8s.object.*` attributes) plus what only the
 * recorder knows: the true series count of events.k8s.io Events, which the
 * receiver never sees (it reads core/v1 `count`, which such Events leave
 * unset), and the outcome. A record is in the trace of the latest
 * occurrence it counts.
 */
export class OpenTelemetryLogSink implements EventSink {
  private constructor(
    private readonly logsApi: OpenTelemetryLogsApi,
    private readonly logger: OtelLogger,
    private readonly api: OpenTelemetryApi | undefined,
  ) {}

  /**
   * The sink, emitting through the global logger provider.
   * @throws Error naming `logRecords` when `@opentelemetry/api-logs` is not installed
   */
  static create(load?: ModuleLoader): OpenTelemetryLogSink {
    const logsApi = loadOpenTelemetryLogsApi(load);
    if (!logsApi) throw new Error(LOG_RECORDS_NEED_API_LOGS);
    return new OpenTelemetryLogSink(logsApi, logsApi.logs.getLogger(INSTRUMENTATION_SCOPE), loadOpenTelemetryApi(load));
  }

  handle(outcome: PublishOutcome): void {
    const { event, regarding, kind } = outcome;
    const written = kind === 'created' || kind === 'patched';
    const attributes: Record<string, string | number> = {
      ...k8sEventAttributes({
        reason: event.reason,
        action: event.action,
        name: outcome.eventName,
        uid: outcome.eventUid,
        namespace: outcome.namespace ?? regarding.namespace,
        count: written ? outcome.count : undefined,
        object: regarding,
      }),
      [OUTCOME_ATTRIBUTE]: kind,
    };
    if (!written) attributes[OCCURRENCES_ATTRIBUTE] = outcome.count;
    if (outcome.error) attributes['error.type'] = errorType(outcome.error);
    const warning = event.type === 'Warning';
    this.logger.emit({
      severityNumber: warning ? this.logsApi.SeverityNumber.WARN : this.logsApi.SeverityNumber.INFO,
      severityText: event.type,
      body: event.note ?? '',
      attributes,
      exception: outcome.error,
      context: this.contextOf(outcome),
    });
  }

  /** The context of the span the outcome's latest occurrence was published in; the root context when none. */
  private contextOf(outcome: PublishOutcome) {
    const { api } = this;
    if (!api) return undefined;
    const traced = outcome.traceContext;
    const spanContext =
      traced && parseTraceparent(traced.traceparent, (state) => api.createTraceState(state), traced.tracestate);
    return spanContext ? api.trace.setSpanContext(api.ROOT_CONTEXT, spanContext) : api.ROOT_CONTEXT;
  }
}

function errorType(error: NonNullable<PublishOutcome['error']>): string {
  const status = (error as { statusCode?: unknown }).statusCode;
  return typeof status === 'number' ? String(status) : error.name;
}
