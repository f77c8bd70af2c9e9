import { writeFileSync } from 'node:fs';
import { defaultConfigJson } from '../src/config/defaults.ts';

writeFileSync(new URL('../config/default.json', import.meta.url), defaultConfigJson());
console.log('wrote config/default.json');
