import type { Command } from '../command.ts';
import { simulateCommand } from './simulate.ts';

/** Every command of the CLI, in the order `--help` lists them. */
export const commands: readonly Command[] = [simulateCommand];
