// Which folder may import which: `npm run depcruise` fails on a violation or a cycle.
// The library's floors, from the bottom: text/ and values/ (redaction and printable text; small containers), which
// import nothing of the library, the ground floor (the files directly in src/), time/ (the clock), event-rules/, catalog/, conditions/, api/, tracing/, error-descriptions/, recorder/,
// permissions/, health/, decorated-methods/ (what both method decorators share), then the features (sinks/, publishes-failures/, condition-changes/, then metrics/), module/, and the entry points
// (index.ts, terminus/, testing/). A folder imports only from floors below it.
const SRC = '^libs/kube-events/src/';
const folder = (...names) => `${SRC}(${names.join('|')})/`;
const FOLDERS = [
  'text',
  'values',
  'time',
  'event-rules',
  'catalog',
  'conditions',
  'api',
  'tracing',
  'error-descriptions',
  'recorder',
  'permissions',
  'health',
  'decorated-methods',
  'sinks',
  'publishes-failures',
  'condition-changes',
  'metrics',
  'module',
  'terminus',
  'testing',
  'cli',
];
const above = (name) => FOLDERS.slice(FOLDERS.indexOf(name) + 1);
// The recorder's rooms, from the bottom: what one publish is and how it ends, the deadlines, the series, when a
// write may go, one write (queue, plan, requests, answers), and the coordinator that runs them. The recorder's own
// files (event-recorder.ts, its options and tokens) sit above them all.
const RECORDER = `${SRC}recorder/`;
const ROOMS = ['publish', 'deadlines', 'series', 'pacing', 'writes', 'coordinator'];
const room = (...names) => `${RECORDER}(${names.join('|')})/`;
const roomAbove = (name) => ROOMS.slice(ROOMS.indexOf(name) + 1);
// A room's door: its index.ts; the coordinator's is the coordinator itself, which the recorder builds.
const DOORS = ['/index\\.ts$', `${RECORDER}coordinator/write-coordinator\\.ts$`];
const layer = (name, forbidden, comment) => ({
  name: `${name}-imports-only-lower-floors`,
  comment,
  severity: 'error',
  from: { path: folder(name) },
  to: { path: folder(...forbidden) },
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No module imports itself through others, in the library, the sample operator, tests or tools.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'ground-floor-imports-only-text-and-values',
      comment:
        'errors, constants, interfaces and messages are what every folder builds on; they quote values as text/ does.',
      severity: 'error',
      from: { path: `${SRC}[^/]+$`, pathNot: `${SRC}index\\.ts$` },
      to: { path: `${SRC}[^/]+/`, pathNot: folder('text', 'values') },
    },
    {
      name: 'text-imports-nothing-of-the-library',
      comment:
        'Redaction and printable text stand alone, so that every floor, the ground floor included, may use them.',
      severity: 'error',
      from: { path: folder('text') },
      to: { path: [`${SRC}[^/]+$`, folder(...FOLDERS.filter((name) => name !== 'text'))] },
    },
    {
      name: 'values-import-nothing-of-the-library',
      comment: 'Small containers and value helpers stand alone, so that every floor may use them.',
      severity: 'error',
      from: { path: folder('values') },
      to: { path: [`${SRC}[^/]+$`, folder(...FOLDERS.filter((name) => name !== 'values'))] },
    },
    layer('time', above('time'), 'The clock knows constants and interfaces, nothing built on it.'),
    layer(
      'event-rules',
      above('event-rules'),
      'What makes a valid Event (fields, names, note bounds) knows no HTTP and no recorder.',
    ),
    layer(
      'catalog',
      above('catalog'),
      "A controller's declared Events know the Event's rules, nothing of how it is written.",
    ),
    layer(
      'conditions',
      above('conditions'),
      "A condition's changes and the Events that say them know the catalog, nothing of how they are written.",
    ),
    layer('api', above('api'), 'HTTP to the API server knows nothing of series, sinks or the module.'),
    layer('tracing', above('tracing'), 'OpenTelemetry glue knows the Event, not the recorder that writes it.'),
    layer(
      'error-descriptions',
      above('error-descriptions'),
      'Describing an error needs nothing of the recorder or what is built on it.',
    ),
    layer('recorder', above('recorder'), 'The recorder is built from parts handed to it; it never reaches up.'),
    layer(
      'permissions',
      above('permissions'),
      'The permission check asks through the API client, and knows no recorder.',
    ),
    layer('health', above('health'), "A recorder's health reads the recorder and its permission check."),
    layer(
      'decorated-methods',
      above('decorated-methods'),
      'How a method decorator publishes through the instance, shared by both decorators; it knows neither.',
    ),
    layer(
      'sinks',
      ['publishes-failures', 'condition-changes', 'metrics', 'module', 'terminus', 'testing'],
      'Sinks sit on the recorder alone.',
    ),
    layer(
      'publishes-failures',
      ['sinks', 'condition-changes', 'metrics', 'module', 'terminus', 'testing'],
      'The decorator sits on the recorder alone.',
    ),
    layer(
      'condition-changes',
      ['sinks', 'publishes-failures', 'metrics', 'module', 'terminus', 'testing'],
      'The decorator sits on the recorder alone, beside @PublishesFailures.',
    ),
    layer('metrics', above('metrics'), 'Metrics are a sink; the module wires them.'),
    layer('module', above('module'), 'The module wires the library; the testing kit is built on it, not under it.'),
    layer('terminus', ['testing'], 'The health indicator reads a health the module provides; nothing imports it.'),
    ...ROOMS.filter((name) => roomAbove(name).length).map((name) => ({
      name: `recorder-room-${name}-imports-only-lower-rooms`,
      comment: "A room of the recorder imports only from the rooms below it, and never the recorder's own files.",
      severity: 'error',
      from: { path: room(name) },
      to: { path: [room(...roomAbove(name)), `${RECORDER}[^/]+\\.ts$`] },
    })),
    {
      name: 'recorder-rooms-entered-by-their-door',
      comment: 'Outside a room of the recorder, only its door is imported: what it holds stays its own.',
      severity: 'error',
      from: { path: SRC, pathNot: [`${RECORDER}([^/]+)/`, '\\.spec\\.ts$'] },
      to: { path: room(...ROOMS), pathNot: DOORS },
    },
    {
      name: 'recorder-room-enters-another-by-its-door',
      comment: 'From one room, another room is entered by its door alone.',
      severity: 'error',
      from: { path: `${RECORDER}([^/]+)/`, pathNot: '\\.spec\\.ts$' },
      to: { path: room(...ROOMS), pathNot: [`${RECORDER}$1/`, ...DOORS] },
    },
    {
      name: 'every-recorder-folder-a-room',
      comment: 'A new folder of the recorder is placed among ROOMS above before anything in it imports.',
      severity: 'error',
      from: { path: `${RECORDER}[^/]+/`, pathNot: room(...ROOMS) },
      to: {},
    },
    {
      name: 'terminus-loaded-by-its-entry-only',
      comment: '@nestjs/terminus is an optional peer: only nestjs-kube-events/terminus loads it.',
      severity: 'error',
      from: { path: SRC, pathNot: `${SRC}terminus/` },
      to: { path: '(^|/)node_modules/@nestjs/terminus/' },
    },
    {
      name: 'every-folder-on-a-floor',
      comment: 'A new folder of the library is placed among FOLDERS above before anything in it imports.',
      severity: 'error',
      from: { path: `${SRC}[^/]+/`, pathNot: folder(...FOLDERS) },
      to: {},
    },
    {
      name: 'library-imports-no-test-code',
      comment: 'The published package carries no test support, spec, benchmark or tool.',
      severity: 'error',
      from: { path: SRC, pathNot: '\\.spec\\.ts$' },
      to: { path: ['^test/', '^bench/', '^tools/', '^apps/', '\\.(e2e-)?spec\\.ts$'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves to a file or an installed package.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)dist/', '(^|/)node_modules/', '^\\.cache/'] },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.d.ts'],
    },
  },
};
