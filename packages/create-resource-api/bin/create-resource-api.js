#!/usr/bin/env node
// `npm create resource-api@latest my-api` runs this command; the compiled generator does the work.
await import('../dist/bin.js');
