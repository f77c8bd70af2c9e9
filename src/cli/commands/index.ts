import type { Command } from '../command.ts';
import { apiCommand } from './apiCommand.ts';
import { demoCommand } from './demoCommand.ts';
import { explainCommand } from './explainCommand.ts';
import { failuresCommand } from './failuresCommand.ts';
import { filesCommand } from './filesCommand.ts';
import { healthCommand } from './healthCommand.ts';
import { heldCommand, rejectCommand, releaseCommand } from './heldCommand.ts';
import { pauseCommand, resumeCommand } from './pauseCommand.ts';
import { planCommand } from './planCommand.ts';
import { runCommand } from './runCommand.ts';
import { simulateCommand } from './simulateCommand.ts';
import { statusCommand } from './statusCommand.ts';

/** Every command of the CLI, in the order `--help` lists them. */
export const commands: readonly Command[] = [
  runCommand,
  statusCommand,
  failuresCommand,
  filesCommand,
  planCommand,
  explainCommand,
  heldCommand,
  releaseCommand,
  rejectCommand,
  pauseCommand,
  resumeCommand,
  apiCommand,
  simulateCommand,
  demoCommand,
  healthCommand,
];
