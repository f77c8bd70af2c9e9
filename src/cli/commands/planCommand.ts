import { resolve } from 'node:path';
import { loadProfilesFile } from '../../config/profiles.ts';
import { readStockRulesFile } from '../../config/stockRulesFile.ts';
import type { OfferSummary } from '../../domain/stockRules.ts';
import {
  type FilePlan,
  guardThresholds,
  KIND_LABEL,
  planFile,
  suggestProfile,
} from '../../inventory/index.ts';
import { commandConfig, parseCommand, println, printText } from '../args.ts';
import { type Command, ExitCode } from '../command.ts';
import { UsageError } from '../usage.ts';
import { describeSuggestion } from './suggestText.ts';

const USAGE = `Usage: supplier-sync plan FILE [--suggest-profile] [--json]

Dry run of an inbox file: reads and checks it exactly as ingestion would (with the profile of
INBOX_PROFILES_FILE that fits its name), compares the rows with the portal stock known in
state.db (opened read-only; no state.db means nothing is known), and prints how it was read
(profile, encoding, delimiter, header line), what would change, the rows clamped to 0 and the
keys a full export would set to 0, how many calls it would cost, and whether the guard rails
would hold it (GUARD_ZERO_PERCENT, GUARD_DROP_PERCENT, GUARD_MIN_KEYS) and why. For a products
file: the products it would create, those the portal has, the brands it would create first, the
calls, and whether CATALOGUE_MAX_NEW would hold it. Touches neither the portal nor inbox/.

With STOCK_RULES_FILE set, its locations map the file's DC codes and its rules decide what is
offered: the ERP's and the offered quantities are shown, and only offered ones are compared.

With --suggest-profile, a profile for the file instead: reads the head of the file (any format),
recognises the exports of the systems whose profiles ship with the project by their headers, or
infers the header line, the sheet, the SKU, quantity and location columns and the rules the
values call for; prints the profile, the first rows as it reads them, and in plain sentences what
it could not decide. --json prints { "profile", "rows", "notes" }.

Options:
  --suggest-profile  a profile for the file (see above)
  --json      machine-readable output
  --config FILE, --sync-data-dir DIR, --bulk-batch-size N, --max-sku-length N,
  --inbox-profiles-file FILE, --stock-rules-file FILE   (settings)

Exit codes: 0 the file would be processed, 3 the guard rails would hold it, 4 it would go to
failed/; 1 the plan itself failed (the file could not be read), 2 bad usage, 78 bad
configuration. With --suggest-profile: 0 a profile is suggested, 4 none could be, or the file
would go to failed/ even with it.`;

export const planCommand: Command = {
  name: 'plan',
  usage: USAGE,
  async run(ctx) {
    const { values, positionals, configFlags } = parseCommand(ctx, {
      json: { type: 'boolean', default: false },
      'suggest-profile': { type: 'boolean', default: false },
    });
    if (positionals.length !== 1) throw new UsageError('plan takes exactly one FILE');
    const config = commandConfig(ctx, configFlags);
    if (values['suggest-profile']) {
      const file = resolve(positionals[0]!);
      const { readable, ...suggestion } = await suggestProfile(file, {
        maxSkuLength: config.maxSkuLength,
        maxRecordBytes: config.inboxMaxRecordBytes,
        timeZone: config.timezone,
      });
      if (values.json) println(ctx.stdout, JSON.stringify(suggestion, null, 2));
      else
        for (const line of describeSuggestion(positionals[0]!, suggestion))
          printText(ctx.stdout, line);
      return readable ? ExitCode.ok : ExitCode.planWouldFail;
    }
    const profiles = config.inboxProfilesFile
      ? loadProfilesFile(config.inboxProfilesFile).profiles
      : [];
    const plan = await planFile(resolve(positionals[0]!), {
      dataDir: config.dataDir,
      bulkBatchSize: config.bulkBatchSize,
      maxSkuLength: config.maxSkuLength,
      guard: guardThresholds(config),
      maxRecordBytes: config.inboxMaxRecordBytes,
      profiles,
      timeZone: config.timezone,
      ...(config.stockRulesFile ? { rules: readStockRulesFile(config.stockRulesFile) } : {}),
      products: { imageType: config.imageType, maxNew: config.catalogueMaxNew },
    });
    if (values.json) println(ctx.stdout, JSON.stringify(plan, null, 2));
    else for (const line of describe(plan)) printText(ctx.stdout, line);
    if (!plan.readable) return ExitCode.planWouldFail;
    const held = plan.stock?.guard?.held === true || plan.products?.held === true;
    return held ? ExitCode.planWouldHold : ExitCode.ok;
  },
};

const MAX_REJECTED_PRINTED = 50;

function showDelimiter(d: string | null): string {
  if (d === '\t') return 'TAB';
  return d === null ? '—' : `"${d}"`;
}

function describe(p: FilePlan): string[] {
  const out: string[] = [];
  const kind = p.kind ? KIND_LABEL[p.kind] : 'unknown kind';
  out.push(`${p.file}: ${kind}${p.format ? ` (${p.format})` : ''}`);
  if (!p.readable) out.push(`  would go to failed/: ${p.reason}`);
  out.push(
    `  rows read ${p.rowsRead}, accepted ${p.rowsAccepted}, rejected ${p.rowsRejected}` +
      (p.summed > 0
        ? `, added up ${p.summed} (rows of a key already named)`
        : p.duplicateRows > 0
          ? `, superseded duplicates ${p.duplicateRows}`
          : ''),
  );
  if (p.skipped > 0 || p.kept > 0) {
    out.push(`  skipped ${p.skipped}, kept as they are ${p.kept} (the profile's values and when)`);
  }
  out.push(`  profile            ${p.profile ?? 'none (the API field names)'}`);
  if (p.profileRules.length > 0) out.push(`  profile rules      ${p.profileRules.join('; ')}`);
  if (p.encoding !== null) {
    out.push(`  encoding           ${p.encoding}`);
    out.push(`  delimiter          ${showDelimiter(p.delimiter)}`);
  }
  if (p.headerLine !== null) out.push(`  header on ${p.positions} ${p.headerLine}`);
  if (p.ignoredColumns.length > 0) out.push(`  ignored columns: ${p.ignoredColumns.join(', ')}`);
  if (!p.stateDb) out.push('  no state.db: nothing is known of the portal yet');
  if (p.kind === 'dc_stock' && !p.distributionCentresChecked)
    out.push('  distribution centres not checked: no cached list in state.db');
  if (p.locationsMapped > 0) out.push(`  locations mapped   ${p.locationsMapped} rows`);
  if (p.stock) {
    const s = p.stock;
    out.push(...describeOffers(s.offers));
    out.push(`  changed            ${s.changed}`);
    out.push(`  unchanged          ${s.unchanged}`);
    out.push(`  unknown to portal  ${s.unknownToPortal}`);
    out.push(`  rejected rows      ${p.rowsRejected}`);
    out.push(`  clamped to 0       ${p.clamped} (negative quantities)`);
    if (p.fullExport) {
      out.push(
        p.absentZeroed === null
          ? '  absent, set to 0   unknown: the portal stock of this kind was never read (the daemon reads it first)'
          : `  absent, set to 0   ${p.absentZeroed} (a full export: keys held above 0 that it omits)`,
      );
    }
    out.push(
      `  calls              ${s.calls} bulk update${s.calls === 1 ? '' : 's'} (batch size ${s.batchSize})`,
    );
    if (s.guard) {
      const g = s.guard;
      const f = g.figures;
      out.push(
        g.held
          ? `  guard rails        would HOLD it in held/: ${g.reason}`
          : `  guard rails        would pass${g.checked ? '' : ` (fewer than GUARD_MIN_KEYS ${g.thresholds.GUARD_MIN_KEYS} in-stock keys named: not checked)`}`,
      );
      out.push(
        `                     ${f.keysInStock} in-stock keys named, ${f.keysZeroed} set to 0 (${f.zeroedPercent}%), sum ${f.sumBefore} → ${f.sumAfter} (−${f.dropPercent}%), ${f.keysUnknown} unknown`,
      );
      if (g.held && g.examples.length > 0) {
        out.push(
          `                     e.g. ${g.examples
            .slice(0, 5)
            .map((x) => `${x.key} ${x.portal}→${x.quantity}`)
            .join(', ')}`,
        );
      }
    }
  }
  if (p.confirmations) {
    const c = p.confirmations;
    out.push(`  new confirmations  ${c.new}`);
    out.push(`  duplicates         ${c.duplicate}`);
    out.push(`  conflicts          ${c.conflict} (stored, never sent)`);
    out.push(`  rejected rows      ${p.rowsRejected}`);
    out.push(`  calls              ${c.calls}`);
  }
  if (p.products) out.push(...describeProducts(p.products, p.rowsRejected));
  if (p.rejected.length > 0) {
    out.push('rejected:');
    for (const r of p.rejected.slice(0, MAX_REJECTED_PRINTED)) {
      out.push(
        `  ${p.positions} ${r.line}: ${r.field} ${r.reason}${r.value === undefined ? '' : ` (${JSON.stringify(r.value)})`}`,
      );
    }
    const more = p.rowsRejected - Math.min(p.rejected.length, MAX_REJECTED_PRINTED);
    if (more > 0) out.push(`  … and ${more} more`);
  }
  return out;
}

const MAX_EXAMPLES_PRINTED = 10;

/** A products file: what would be created, what exists, the calls, the guard rail. */
function describeProducts(p: NonNullable<FilePlan['products']>, rejected: number): string[] {
  const c = p.calls;
  const out = [
    `  would create       ${p.create} products${p.shortDescription > 0 ? ` (${p.shortDescription} with a description under 100 characters)` : ''}`,
    `  existing           ${p.existing} (the portal has them: never sent)`,
    `  new brands         ${p.brandsToCreate.length}${p.brandsToCreate.length > 0 ? `: ${p.brandsToCreate.slice(0, MAX_EXAMPLES_PRINTED).join(', ')}` : ''}`,
    `  rejected rows      ${rejected}`,
    `  calls              ${c.total} (${c.creations} creations, ${c.brands} brands, ${c.reads} reads)`,
  ];
  if (!p.referencesChecked) {
    out.push('  sites, tax rates and centres not checked: none kept in state.db yet');
  }
  if (p.held !== null) {
    out.push(
      p.held
        ? `  guard rails        would HOLD it in held/: ${p.reason}`
        : `  guard rails        would pass: ${p.reason}`,
    );
  }
  for (const r of p.toCreate.slice(0, MAX_EXAMPLES_PRINTED)) {
    out.push(
      `    e.g. line ${r.line}: ${r.sku} ${JSON.stringify(r.name)}${r.brand ? ` (${r.brand})` : ''}`,
    );
  }
  return out;
}

/** The stock rules' part: ERP against offered units, keys per rule, a few examples. */
function describeOffers(o: OfferSummary): string[] {
  if (o.byRule.length === 0) return [`  units              ${o.erpUnits} (no stock rule applies)`];
  const out = [
    `  units              ERP ${o.erpUnits}, offered ${o.offeredUnits}`,
    `  offered otherwise  ${o.adjusted} keys`,
    `  excluded           ${o.excluded} keys (never pushed)`,
  ];
  for (const r of o.byRule) out.push(`    ${r.keys} keys by ${r.rule}`);
  for (const e of o.examples.slice(0, MAX_EXAMPLES_PRINTED)) {
    out.push(
      `    e.g. ${e.key}: ERP ${e.erp} → ${e.offered === null ? 'excluded' : `offered ${e.offered}`} (${e.rule.replace(/:.*/, '')})`,
    );
  }
  return out;
}
