import { readFileSync, writeFileSync } from 'node:fs';
import { defaultConfigJson, withSettingsTable } from '../src/config/defaults.ts';

// config/default.json and the README's settings table both come from src/config/settings.ts.
writeFileSync(new URL('../config/default.json', import.meta.url), defaultConfigJson());
const readme = new URL('../README.md', import.meta.url);
writeFileSync(readme, withSettingsTable(readFileSync(readme, 'utf8')));
console.log('wrote config/default.json and the settings table of README.md');
