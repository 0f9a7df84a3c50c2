import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startupError } from './processes.js';

describe('a control plane process that did not start', () => {
  it('shows the end of its log, and says which of its error lines are harmless, and only those', async () => {
    const logPath = join(await mkdtemp(join(tmpdir(), 'kube-events-log-')), 'kube-apiserver.log');
    await writeFile(
      logPath,
      'E1207 19:50:01.123456   4242 options.go:205] The manifest file is empty, ignoring.\n' +
        'E1207 19:50:02.000000   4242 run.go:72] "command failed" err="failed to listen on 127.0.0.1:6443"\n',
    );
    const { message } = startupError('kube-apiserver', 'it exited with 1', logPath);
    expect(message).toContain('failed to listen on 127.0.0.1:6443');
    expect(message).toMatch(
      /\n---\n\(harmless: "The manifest file is empty, ignoring\.": Kubernetes 1\.37 logs it at every start/,
    );
    const otherLog = join(await mkdtemp(join(tmpdir(), 'kube-events-log-')), 'etcd.log');
    await writeFile(otherLog, '{"level":"fatal","msg":"listen tcp 127.0.0.1:2379: bind: address already in use"}\n');
    expect(startupError('etcd', 'it exited with 1', otherLog).message).not.toContain('harmless');
  });
});
