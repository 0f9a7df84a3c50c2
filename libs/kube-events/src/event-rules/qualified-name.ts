const QUALIFIED_NAME = /^(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Whether the API server accepts `value` as a qualified name
 * (`[dns-subdomain/]name`), as it requires of `reportingController` and of
 * annotation keys.
 */
export function isQualifiedName(value: string): boolean {
  const slash = value.indexOf('/');
  const prefix = slash >= 0 ? value.slice(0, slash) : undefined;
  const name = slash >= 0 ? value.slice(slash + 1) : value;
  if (prefix !== undefined && !isDnsSubdomain(prefix)) return false;
  return name.length <= 63 && QUALIFIED_NAME.test(name);
}

/** Whether `value` is a DNS subdomain (RFC 1123), as the prefix of a qualified name must be. */
export function isDnsSubdomain(value: string): boolean {
  return value.length > 0 && value.length <= 253 && DNS_SUBDOMAIN.test(value);
}

const LABEL_VALUE = /^(?:(?:[A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Whether the API server accepts `value` as a label value: at most 63 characters, empty or alphanumeric at both ends. */
export function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}
