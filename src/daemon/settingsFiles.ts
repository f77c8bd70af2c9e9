import type { Config } from '../config/index.ts';
import { type ProfilesFile, watchProfilesFile } from '../config/profiles.ts';
import type { WatchedFile, WatchLog } from '../config/watchedFile.ts';
import type { Logger } from '../log/logger.ts';
import { loadStockRules, type StockRulesSource } from './liveStockRules.ts';

/** The settings files the running daemon watches: inbox profiles and stock rules. */
export interface SettingsFiles {
  /** INBOX_PROFILES_FILE's profiles in force; undefined without the setting. */
  readonly profiles: WatchedFile<ProfilesFile> | undefined;
  readonly stockRules: StockRulesSource;
  /** Reads both files now, as the next look (every 2 s) would. */
  check(): Promise<void>;
  stop(): void;
}

/**
 * Reads INBOX_PROFILES_FILE and STOCK_RULES_FILE — first, so that a broken file stops the start
 * (exit 78) before anything is opened — and watches them from then on; each inbox file is read
 * with the profiles in force when it is taken, and the stock rules are attached to state.db once
 * it is open. `watchLog` hears their `.invalid` warnings (which notify).
 */
export function loadSettingsFiles(config: Config, log: Logger, watchLog: WatchLog): SettingsFiles {
  const path = config.inboxProfilesFile;
  const profiles = path ? watchProfilesFile(path, watchLog) : undefined;
  if (profiles && path) {
    log.info(
      { event: 'profiles.loaded', file: path, profiles: profiles.current().profiles.length },
      `inbox profiles read from ${path}`,
    );
  }
  const stockRules = loadStockRules(config, log, watchLog);
  return {
    profiles,
    stockRules,
    async check() {
      await Promise.all([profiles?.check(), stockRules.check()]);
    },
    stop() {
      profiles?.stop();
      stockRules.stop();
    },
  };
}
