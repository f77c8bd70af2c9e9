export { ConfigError } from './configError.ts';
export {
  type DataPaths,
  dataPaths,
  ensureDataDirs,
  fileNameProblem,
  inboxFilePath,
} from './dataPaths.ts';
export type { ConfigSources } from './load.ts';
export { describeConfig, extractConfigFlags, flagName, loadConfig } from './load.ts';
export { configSecrets, maskUrlPassword } from './secrets.ts';
export type { Config, SettingName } from './settings.ts';
export { settings } from './settings.ts';
export { redisUrls } from './settingTypes.ts';
