// The V8 settings postbook's long-running processes run with (decision 0037). The process entries (server.ts,
// cli.ts) import this module before any other, so that the settings hold from the first allocation, whichever
// way the process is started (`npm start`, deploy/Procfile, the systemd units, `node dist/server.js`).
import v8 from 'node:v8';

// `--no-allocation-site-pretenuring`, as `node` would take it on its command line: V8 otherwise decides, from what
// survives its young-generation collections, that an allocation site makes long-lived objects and allocates that
// site's objects straight in the old generation. Start-up (the sandbox world, migrations, plugins) takes such
// decisions for sites that every request also uses; a request's object allocated old and dead keeps the young
// objects it points to alive through the next collection, and every request's objects are then copied into the old
// generation — in about one process start in ten, for the process's life: +60–100 MB resident, 10–40 % fewer
// answers on the thin paths.
v8.setFlagsFromString('--no-allocation-site-pretenuring');
