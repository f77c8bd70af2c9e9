import type { Command } from '../command.ts';
import { apiCommand } from './api.ts';
import { demoCommand } from './demo.ts';
import { explainCommand } from './explain.ts';
import { failuresCommand } from './failures.ts';
import { filesCommand } from './files.ts';
import { healthCommand } from './health.ts';
import { heldCommand, rejectCommand, releaseCommand } from './held.ts';
import { planCommand } from './plan.ts';
import { runCommand } from './run.ts';
import { simulateCommand } from './simulate.ts';
import { statusCommand } from './status.ts';

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
  apiCommand,
  simulateCommand,
  demoCommand,
  healthCommand,
];
