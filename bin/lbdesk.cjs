#!/usr/bin/env node
// The installed `lbdesk` command: runs the bundled CLI (built by `npm run build`).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const bundle = join(__dirname, '..', 'out', 'cli', 'lbdesk.cjs');
if (!existsSync(bundle)) {
  process.stderr.write('lbdesk: not built yet: run `npm run build` in ' + join(__dirname, '..') + '\n');
  process.exit(2);
}
require(bundle);
