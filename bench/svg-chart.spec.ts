import { renderLineChart, ticks } from './svg-chart.js';

describe('svg-chart', () => {
  it('puts about five round ticks from 0 past the largest value', () => {
    expect(ticks(10_000)).toEqual([0, 2000, 4000, 6000, 8000, 10000]);
    expect(ticks(37)).toEqual([0, 10, 20, 30, 40]);
    expect(ticks(0)).toEqual([0, 1]);
  });

  it('draws every line of every panel, and each label once in the legend', () => {
    const svg = renderLineChart({
      title: 'Counts <over> time & more',
      xLabel: 'seconds',
      yLabel: 'occurrences',
      description: 'npm run bench:clientgo, a run',
      panels: [
        {
          title: 'Storm',
          lines: [
            {
              label: 'published',
              color: '#777',
              dashed: true,
              points: [
                [0, 0],
                [0.1, 10_000],
              ],
            },
            {
              label: 'library',
              color: '#1f77b4',
              points: [
                [0, 0],
                [1, 10_000],
                [20, 10_000],
              ],
            },
          ],
        },
        {
          title: 'Backoff',
          lines: [
            {
              label: 'published',
              color: '#777',
              dashed: true,
              points: [
                [0, 0],
                [13, 4_000],
              ],
            },
            {
              label: 'library',
              color: '#1f77b4',
              points: [
                [0, 0],
                [13, 4_000],
              ],
            },
          ],
        },
      ],
    });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('<title>Counts &lt;over&gt; time &amp; more</title>');
    expect(svg).toContain('<desc>npm run bench:clientgo, a run</desc>');
    expect(svg.match(/<path /g)).toHaveLength(4);
    expect(svg.match(/stroke-dasharray/g)).toHaveLength(3); // two dashed lines, one legend entry
    expect(svg.match(/<text[^>]*>published<\/text>/g)).toHaveLength(1);
    // Each panel its own x axis: 20 s ends the storm's; the backoff's, at 15 s, has no tick at 20.
    expect(svg.match(/>20</g)).toHaveLength(1);
  });
});
