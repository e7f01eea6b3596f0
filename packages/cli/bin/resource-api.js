#!/usr/bin/env node
// The installed command runs the compiled binary. It is a file of its own, kept in the repository, so that the
// workspace's install can link the command before the first build has made dist/bin.js.
await import('../dist/bin.js');
