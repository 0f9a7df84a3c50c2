/**
 * A duration as `kubectl` prints ages, to two units at most: `850ms`,
 * `42s`, `2m10s`, `3h5m`, `2d4h`.
 */
export function humanDuration(ms: number): string {
  if (!(ms >= 1_000)) return `${Math.max(0, Math.round(ms || 0))}ms`;
  const seconds = Math.round(ms / 1_000);
  if (seconds < 60) return `${seconds}s`;
  const [minutes, hours, days] = [Math.floor(seconds / 60), Math.floor(seconds / 3_600), Math.floor(seconds / 86_400)];
  if (minutes < 60) return pair(minutes, 'm', seconds % 60, 's');
  if (hours < 24) return pair(hours, 'h', minutes % 60, 'm');
  return pair(days, 'd', hours % 24, 'h');
}

function pair(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor ? `${major}${majorUnit}${minor}${minorUnit}` : `${major}${majorUnit}`;
}
