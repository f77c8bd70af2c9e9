import { readFileSync, writeFileSync } from 'node:fs';
import { defaultConfigJson, withSettingsTable } from '../src/config/defaults.ts';

// config/default.json and the settings table of docs/configuration.md both come from src/config/settings.ts.
writeFileSync(new URL('../config/default.json', import.meta.url), defaultConfigJson());
const doc = new URL('../docs/configuration.md', import.meta.url);
writeFileSync(doc, withSettingsTable(readFileSync(doc, 'utf8')));
console.log('wrote config/default.json and the settings table of docs/configuration.md');
