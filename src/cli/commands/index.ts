import type { Command } from '../command.ts';

/** Every command of the CLI, in the order `--help` lists them. */
export const commands: readonly Command[] = [];
