/**
 * The layers of src/, checked by `npm test` (npm run lint:deps, over src/, deploy/ and scripts/).
 * Imports point down only:
 *
 *   cli → demo → daemon → actions | notifications → jobs → inventory | shipments | sync | retention
 *   | products
 *   → api → state → domain | config | log | files → failures
 *
 * Modules of one tier do not import each other (the flows meet in domain/ and state/; where one
 * flow needs another's operation, the daemon hands it over as an edge), except that api/ may use
 * state/ (the token, the budget and learnt sizes live in state.db). Each flow's folder, api/ and
 * notifications/ are entered through their index.ts only (the service and what the others read),
 * and a job processor takes the flows' services and nothing else of theirs. failures/ (the error codes and the one failure policy) is the ground: every layer
 * that throws gives its errors a code from there, and jobs/ classifies them all without looking
 * up. The simulator stands alone. BullMQ is known to jobs/ only; SQLite to state/ and to the
 * snapshot reader (it opens the ERP's own file). actions/ holds what an operator does (release,
 * reject, retry): the commands and the daemon's console call the same functions.
 */
const tiers = [
  ['cli'],
  ['demo'],
  ['daemon'],
  ['actions', 'notifications'],
  ['jobs'],
  ['inventory', 'shipments', 'sync', 'retention', 'products'],
  ['api'],
  ['state'],
  ['domain', 'config', 'log', 'files'],
  ['failures'],
];

/**
 * For each tier of `tiers` (top first) under `base`: it may not import any tier above it, nor a
 * sibling of its own tier. `label` prefixes the rules' names.
 */
function tierRules(tiers, base, label) {
  const folder = (names) => `^${base}(${names.join('|')})/`;
  return tiers.flatMap((tier, i) => {
    const above = tiers.slice(0, i).flat();
    const rules = [];
    if (above.length > 0) {
      rules.push({
        name: `${label}-${tier.join('-')}-up`,
        comment: `${base}${tier.join(', ')} may not import a layer above it (${above.join(', ')})`,
        severity: 'error',
        from: { path: folder(tier) },
        to: { path: folder(above) },
      });
    }
    for (const name of tier) {
      const siblings = tier.filter((t) => t !== name);
      if (siblings.length === 0) continue;
      rules.push({
        name: `${label}-${name}-sideways`,
        comment: `${base}${name} may not import ${siblings.join(', ')} (same tier: share through a lower one)`,
        severity: 'error',
        from: { path: folder([name]) },
        to: { path: folder(siblings) },
      });
    }
    return rules;
  });
}

/**
 * The layers inside src/inventory/, bottom last: the data dir's inbox folders, the readers and
 * the staging of a set's rows into a scratch database (a worker thread writes large ones) at the
 * bottom, then validation, the staged apply with its before-apply checks (full-export zeroing,
 * the guard rails), then the two sources (one inbox file; the ERP snapshot), then what works on
 * their results (an operator's decisions on what is held; the dry run; a profile suggested for a
 * file). Imports point down only, and siblings of one tier do not import each other.
 */
const inventoryTiers = [
  ['held', 'plan', 'suggest'],
  ['ingest', 'snapshot'],
  ['apply'],
  ['validate'],
  ['inbox', 'parse', 'staging'],
];

/** The flows, each with one service (its folder's index.ts exports its factory). */
const FLOWS = ['inventory', 'sync', 'shipments', 'retention', 'products'];
/** Folders entered through their index.ts only, from anywhere else in src/. */
const DOORS = [...FLOWS, 'api', 'notifications'];

/** `folder` is entered through its index.ts only, and nothing inside it imports that index. */
function doorRules(folder) {
  return [
    {
      name: `${folder}-through-its-index`,
      comment: `other folders import ${folder}/ through src/${folder}/index.ts only`,
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/${folder}/` },
      to: { path: `^src/${folder}/`, pathNot: `^src/${folder}/index\\.ts$` },
    },
    {
      name: `${folder}-index-is-the-top`,
      comment: `nothing inside ${folder}/ imports its own index (it would run back up)`,
      severity: 'error',
      from: { path: `^src/${folder}/` },
      to: { path: `^src/${folder}/index\\.ts$` },
    },
  ];
}

module.exports = {
  forbidden: [
    ...tierRules(tiers, 'src/', 'layers'),
    ...tierRules(inventoryTiers, 'src/inventory/', 'inventory'),
    ...DOORS.flatMap(doorRules),
    {
      name: 'processors-take-services',
      comment:
        'a job processor reaches a flow through its service only: it imports jobs/ and the flows’ index.ts, nothing else of src/',
      severity: 'error',
      from: { path: '^src/jobs/processors/' },
      to: { path: '^src/', pathNot: `^src/(jobs/|(${FLOWS.join('|')})/index\\.ts$)` },
    },
    {
      name: 'no-cycles',
      comment: 'no module reaches itself through its imports',
      severity: 'error',
      from: { path: '^(src|deploy|scripts)/' },
      to: { circular: true },
    },
    {
      name: 'src-stands-alone',
      comment: 'src/ imports nothing of deploy/, scripts/, bench/ or test/',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(deploy|scripts|bench|test)/' },
    },
    {
      name: 'deploy-under-scripts',
      comment:
        'deploy/ (the manifests and their renderer) uses src/ only, never scripts/, bench/ or test/',
      severity: 'error',
      from: { path: '^deploy/' },
      to: { path: '^(scripts|bench|test)/' },
    },
    {
      name: 'scripts-not-tests',
      comment: 'scripts/ use src/ and deploy/, never bench/ or test/',
      severity: 'error',
      from: { path: '^scripts/' },
      to: { path: '^(bench|test)/' },
    },
    {
      name: 'simulator-stands-alone',
      comment: 'the simulator imports nothing of the daemon',
      severity: 'error',
      from: { path: '^src/simulator/' },
      to: { path: '^src/', pathNot: '^src/simulator/' },
    },
    {
      name: 'nothing-imports-the-simulator',
      comment: 'only the demo and the simulate command start a simulator',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(simulator|demo|cli/commands/simulateCommand\\.ts)' },
      to: { path: '^src/simulator/' },
    },
    {
      name: 'bullmq-only-in-jobs',
      comment: 'BullMQ is known to jobs/ only',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/jobs/' },
      to: { path: 'node_modules/bullmq/' },
    },
    {
      name: 'sqlite-only-in-state',
      comment: 'better-sqlite3 is known to state/ and to the snapshot reader only',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(state/|inventory/snapshot/snapshotRows\\.ts$)' },
      to: { path: 'node_modules/better-sqlite3/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'every import resolves',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: ['^(src|deploy|scripts)/', 'node_modules/(bullmq|better-sqlite3)/'],
    parser: 'swc',
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
