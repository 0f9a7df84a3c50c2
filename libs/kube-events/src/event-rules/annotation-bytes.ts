/** The API server's limit on an object's annotations: keys and values, in UTF-8 bytes. */
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/**
 * Room kept within the limit for the annotations the library adds to an
 * Event it wrote: the write marks (`nestjs-kube-events/writes`, about 300
 * bytes) and the end of a series (`nestjs-kube-events/series-ended`), so
 * that adding them never makes a write the server refuses.
 */
export const RESERVED_ANNOTATION_BYTES = 512;

/** What a caller's annotations, with the trace context's, may hold. */
export const MAX_CALLER_ANNOTATIONS_BYTES = MAX_ANNOTATIONS_BYTES - RESERVED_ANNOTATION_BYTES;

/** The UTF-8 bytes of `annotations`' keys and values, as the API server counts them. */
export function annotationBytes(annotations: Readonly<Record<string, string>>): number {
  let bytes = 0;
  for (const key of Object.keys(annotations)) bytes += Buffer.byteLength(key) + Buffer.byteLength(annotations[key]);
  return bytes;
}

/** Whether `annotations` and `extraBytes` more fit within {@link MAX_CALLER_ANNOTATIONS_BYTES}. */
export function annotationsFit(annotations: Readonly<Record<string, string>>, extraBytes = 0): boolean {
  return annotationBytes(annotations) + extraBytes <= MAX_CALLER_ANNOTATIONS_BYTES;
}
