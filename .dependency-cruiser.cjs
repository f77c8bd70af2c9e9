/**
 * The layers of src/, checked by `npm test` (npm run lint:deps). Imports point down only:
 *
 *   cli → demo → daemon → actions | notifications → jobs → inventory | shipments | sync → api → state → domain | config | log | files
 *   → failures
 *
 * Modules of one tier do not import each other (inventory, shipments and sync meet in domain/
 * and state/), except that api/ may use state/ (the token, the budget and learnt sizes live in
 * state.db). failures/ (the error codes and the one failure policy) is the ground: every layer
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
  ['inventory', 'shipments', 'sync'],
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
 * their results (an operator's decisions on what is held; the dry run). Imports point down only,
 * and siblings of one tier do not import each other.
 */
const inventoryTiers = [
  ['held', 'plan'],
  ['ingest', 'snapshot'],
  ['apply'],
  ['validate'],
  ['inbox', 'parse', 'staging'],
];

module.exports = {
  forbidden: [
    ...tierRules(tiers, 'src/', 'layers'),
    ...tierRules(inventoryTiers, 'src/inventory/', 'inventory'),
    {
      name: 'inventory-through-its-index',
      comment: 'other folders import inventory/ through src/inventory/index.ts only',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/inventory/' },
      to: { path: '^src/inventory/', pathNot: '^src/inventory/index\\.ts$' },
    },
    {
      name: 'inventory-index-is-the-top',
      comment: 'nothing inside inventory/ imports its own index (it would run back up)',
      severity: 'error',
      from: { path: '^src/inventory/' },
      to: { path: '^src/inventory/index\\.ts$' },
    },
    {
      name: 'no-cycles',
      comment: 'no module reaches itself through its imports',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
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
    includeOnly: ['^src/', 'node_modules/(bullmq|better-sqlite3)/'],
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
