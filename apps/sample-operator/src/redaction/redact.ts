import { redactCredentials } from 'nestjs-kube-events';

/**
 * The operator's one gate for text that leaves the process: every log line
 * ({@link RedactingLogger}), every status condition message (which tenants
 * read) and every reconcile span's status and exception pass through it. An
 * error's text can quote a URL with userinfo (undici refuses
 * `https://admin:password@host` and says so), a header or a token: the
 * library's {@link redactCredentials} removes them.
 */
export function redact(text: string): string {
  return redactCredentials(text);
}
