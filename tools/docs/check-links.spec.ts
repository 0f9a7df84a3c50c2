import { anchorsOf } from './check-links.js';

describe('anchorsOf', () => {
  it('makes anchors as GitHub does: lower case, punctuation dropped, spaces as hyphens', () => {
    const anchors = anchorsOf(
      [
        '# Failure events: `@PublishesFailures()`',
        '## `KubeEventsModule.forRoot` / `forRootAsync`',
        "## The library's layers",
        '## What notes, outcomes, log lines and errors carry',
      ].join('\n'),
    );
    expect([...anchors]).toEqual([
      'failure-events-publishesfailures',
      'kubeeventsmoduleforroot--forrootasync',
      'the-librarys-layers',
      'what-notes-outcomes-log-lines-and-errors-carry',
    ]);
  });

  it('numbers a repeated heading, and ignores lines in code blocks', () => {
    const anchors = anchorsOf(['## Options', '```sh', '# not a heading', '```', '## Options'].join('\n'));
    expect([...anchors]).toEqual(['options', 'options-1']);
  });
});
