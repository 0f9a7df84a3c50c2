/** The API server's limit on an object's annotations: keys and values, in UTF-8 bytes. */
export const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/** The UTF-8 bytes of `annotations`' keys and values, as the API server counts them. */
export function annotationBytes(annotations: Readonly<Record<string, string>>): number {
  let bytes = 0;
  for (const key of Object.keys(annotations)) bytes += Buffer.byteLength(key) + Buffer.byteLength(annotations[key]);
  return bytes;
}

/**
 * Whether `annotations` and `extraBytes` more fit within
 * {@link MAX_ANNOTATIONS_BYTES}. Counts UTF-16 code units first (each at
 * least one UTF-8 byte and at most three), so that annotations well within
 * the limit are never encoded to be measured.
 */
export function annotationsFit(annotations: Readonly<Record<string, string>>, extraBytes = 0): boolean {
  let units = 0;
  for (const key of Object.keys(annotations)) units += key.length + annotations[key].length;
  if (units * 3 + extraBytes <= MAX_ANNOTATIONS_BYTES) return true;
  if (units + extraBytes > MAX_ANNOTATIONS_BYTES) return false;
  return annotationBytes(annotations) + extraBytes <= MAX_ANNOTATIONS_BYTES;
}
