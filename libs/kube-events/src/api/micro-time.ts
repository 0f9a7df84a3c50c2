/**
 * `time` as a `MicroTime` in JSON: RFC 3339 in UTC with six fractional
 * digits, the only precision the API server takes (a `Date` gives three).
 * What client-node's `V1MicroTime` writes, made a string before the body
 * is: `JSON.stringify` of an object that holds a `Date` takes its slow
 * path for all of it, which cost a patch body four times what it does
 * with a string. Read as a plain `Date`, so that a `V1MicroTime` and a
 * `Date` come out alike.
 */
export function microTime(time: Date): string {
  const year = time.getUTCFullYear();
  // Written out by hand, a fifth of what `toISOString` costs; it keeps the years a four-digit field cannot hold.
  if (!(year >= 1000 && year <= 9999)) return `${Date.prototype.toISOString.call(time).slice(0, -1)}000Z`;
  const month = twoDigits(time.getUTCMonth() + 1);
  const day = twoDigits(time.getUTCDate());
  const clock = `${twoDigits(time.getUTCHours())}:${twoDigits(time.getUTCMinutes())}:${twoDigits(time.getUTCSeconds())}`;
  const ms = time.getUTCMilliseconds();
  return `${year}-${month}-${day}T${clock}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}000Z`;
}

function twoDigits(value: number): string {
  return value < 10 ? `0${value}` : `${value}`;
}
