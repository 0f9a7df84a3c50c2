/**
 * What differs between two reports of the same failure in a service's
 * message: a request's id (Azure's `RequestId:…` line, Stripe's
 * `[req_…]`, `x-ms-request-id`, `Trace ID`, `Correlation ID`, OpenAI's
 * `request ID req_…`) and its time (Azure's `Time:…` line, Entra ID's
 * `Timestamp: …`). Each pattern is bounded.
 */
const PER_REQUEST_DETAIL: readonly RegExp[] = [
  /\[req_[\w-]{1,64}\]\s?/g,
  /\b(?:x-ms-|x-amz-)?(?:client-)?(?:request|trace|correlation)[ _-]?id\b["']?[ \t]{0,3}[:=]?[ \t]{0,3}["']?[\w.:/+=-]{4,128}["']?/gi,
  /\b(?:time(?:stamp)?|date)["']?[ \t]{0,3}[:=][ \t]{0,3}["']?\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d{1,9})?)?(?:Z|[+-]\d\d:?\d\d)?)?["']?/gi,
];

/**
 * `text` without the id and time of the request it reports on, so that
 * the same failure always reads the same and its Events fold: `The
 * specified container does not exist.\nRequestId:…\nTime:…` is `The
 * specified container does not exist.`
 */
export function withoutPerRequestDetail(text: string): string {
  let kept = text;
  for (const pattern of PER_REQUEST_DETAIL) kept = kept.replace(pattern, '');
  return kept;
}
