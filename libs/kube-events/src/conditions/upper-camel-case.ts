/**
 * `text` in UpperCamelCase, as SIG Instrumentation's Event style guide asks
 * of a reason: every run of letters and digits, its first letter made a
 * capital, the rest dropped (`minimum_replicas:low` → `MinimumReplicasLow`).
 * Empty when `text` holds no letter or digit.
 */
export function upperCamelCase(text: string): string {
  let result = '';
  for (const word of text.split(/[^A-Za-z0-9]+/)) result += word.charAt(0).toUpperCase() + word.slice(1);
  return result;
}
