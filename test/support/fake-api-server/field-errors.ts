// Field errors, as k8s.io/apimachinery/pkg/util/validation/field renders them

export type BadValue = string | number | { go: string };

export interface FieldError {
  type: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueTooLong';
  field: string;
  bad?: BadValue;
  detail: string;
}

export function fieldRequired(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, detail };
}

export function fieldInvalid(field: string, bad: BadValue, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, bad, detail };
}

export function errorBody(error: FieldError): string {
  let body: string;
  switch (error.type) {
    case 'FieldValueRequired':
      body = 'Required value';
      break;
    case 'FieldValueTooLong':
      body = 'Too long';
      break;
    default: {
      const bad = error.bad ?? '';
      body = `Invalid value: ${typeof bad === 'string' ? goQuote(bad) : typeof bad === 'number' ? String(bad) : bad.go}`;
    }
  }
  return error.detail ? `${body}: ${error.detail}` : body;
}

export function errorString(error: FieldError): string {
  return `${error.field}: ${errorBody(error)}`;
}

export function goQuote(value: string): string {
  return JSON.stringify(value);
}
