/**
 * Formats a time as a Kubernetes `MicroTime`: RFC 3339 with exactly six
 * fractional digits. The API server refuses `eventTime` and
 * `series.lastObservedTime` in any other precision, and client-node would
 * send a `Date` with three, so the string is sent as it is.
 */
export function toMicroTime(epochMs: number): string {
  const iso = new Date(epochMs).toISOString(); // 2026-11-30T13:08:33.123Z
  return `${iso.slice(0, -1)}000Z`;
}
