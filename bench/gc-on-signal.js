// Preloaded into the live-sync replicas of `npm run bench:live-sync` only
// (NODE_OPTIONS="--expose-gc --require <this file>"): SIGUSR2 runs a full garbage collection, so
// that the heap figure `/metrics` gives next is the live heap rather than live heap plus garbage.
process.on('SIGUSR2', () => {
  if (typeof global.gc === 'function') global.gc();
});
