// Every command registers itself here; the order is the order in `lbdesk --help`.
import type { Command } from 'commander';
import { register as demo } from './demo';
import { register as render } from './render';
import { register as check } from './check';
import { register as validate } from './validate';
import { register as serve } from './serve';
import { register as push } from './push';
import { register as confirm } from './confirm';
import { register as pull } from './pull';
import { register as diff } from './diff';
import { register as compare } from './compare';
import { register as importCommand } from './import';
import { register as report } from './report';
import { register as operate } from './operate';
import { register as whatif } from './whatif';
import { register as replay } from './replay';

export type Register = (program: Command) => void;
export const commands: Register[] = [demo, validate, render, check, serve, push, confirm, pull, diff, compare, importCommand, report, operate, whatif, replay];
