// Names, as k8s.io/apimachinery/pkg/util/validation checks them

export const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
export const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
export const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
export const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;
export const QUALIFIED_NAME_ERROR =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

export function fullMatch(fmt: string, value: string): boolean {
  return new RegExp(`^(?:${fmt})$`).test(value);
}

export function regexError(message: string, fmt: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${fmt}')`;
  return `${message} (e.g. ${examples.map((example) => `'${example}', `).join('or ')}regex used for validation is '${fmt}')`;
}

export function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

export function bytes(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

export function isDns1123Subdomain(value: string): string[] {
  const errors: string[] = [];
  if (bytes(value) > 253) errors.push(maxLenError(253));
  if (!fullMatch(DNS1123_SUBDOMAIN_FMT, value)) {
    errors.push(
      regexError(
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
        DNS1123_SUBDOMAIN_FMT,
        'example.com',
      ),
    );
  }
  return errors;
}

export function isDns1123Label(value: string): string[] {
  const errors: string[] = [];
  if (bytes(value) > 63) errors.push(maxLenError(63));
  if (!fullMatch(DNS1123_LABEL_FMT, value)) {
    errors.push(
      regexError(
        "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
        DNS1123_LABEL_FMT,
        'my-name',
        '123-abc',
      ),
    );
  }
  return errors;
}

export function isQualifiedName(value: string): string[] {
  const errors: string[] = [];
  const parts = value.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0];
    name = parts[1]!;
    if (prefix.length === 0) errors.push('prefix part must be non-empty');
    else errors.push(...isDns1123Subdomain(prefix).map((message) => `prefix part ${message}`));
  } else {
    return [
      `a qualified name ${regexError(QUALIFIED_NAME_ERROR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errors.push('name part must be non-empty');
  else if (bytes(name) > 63) errors.push(`name part ${maxLenError(63)}`);
  if (!fullMatch(QUALIFIED_NAME_FMT, name)) {
    errors.push(`name part ${regexError(QUALIFIED_NAME_ERROR, QUALIFIED_NAME_FMT, 'MyName', 'my.name', '123-abc')}`);
  }
  return errors;
}

export function isValidLabelValue(value: string): string[] {
  const errors: string[] = [];
  if (bytes(value) > 63) errors.push(maxLenError(63));
  if (!fullMatch(LABEL_VALUE_FMT, value)) {
    errors.push(
      regexError(
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
        LABEL_VALUE_FMT,
        'MyValue',
        'my_value',
        '12345',
      ),
    );
  }
  return errors;
}

/** apimachinery's NameIsDNSSubdomain: a generateName may end in '-' (masked), nothing else is forgiven. */
export function nameIsDnsSubdomain(name: string, prefix: boolean): string[] {
  const masked = prefix && name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
  return isDns1123Subdomain(masked);
}
