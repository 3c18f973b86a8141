// Exit 0 when a Temporal frontend at TEMPORAL_ADDRESS answers GetSystemInfo and
// knows TEMPORAL_NAMESPACE, 1 otherwise, 2 when @temporalio/client is not
// installed (so infra.sh can stop waiting).
//
// Both calls are implemented by Temporal's Java test server and by a real
// server; the namespace check matters for the real one (docker fallback), whose
// frontend is up before its setup job has registered the namespace.
//
// Run repeatedly by scripts/infra.sh, so it must fail fast and print little.

let client;
try {
  client = await import('@temporalio/client');
} catch {
  console.error('temporal-ready: @temporalio/client is not installed (run npm ci)');
  process.exit(2);
}
const { Connection } = client;

const address = process.env.TEMPORAL_ADDRESS || '127.0.0.1:7233';
const namespace = process.env.TEMPORAL_NAMESPACE || 'default';

// gRPC can sit in CONNECTING for a long time; the caller polls on its own deadline.
const watchdog = setTimeout(() => {
  if (process.env.INFRA_VERBOSE) console.error('temporal-ready: timed out');
  process.exit(1);
}, 5000);

let code = 1;
let connection;
try {
  connection = await Connection.connect({ address, connectTimeout: 2000 });
  await connection.workflowService.getSystemInfo({});
  await connection.workflowService.describeNamespace({ namespace });
  code = 0;
} catch (err) {
  if (process.env.INFRA_VERBOSE) console.error(`temporal-ready: ${err.message}`);
} finally {
  await connection?.close().catch(() => {});
  clearTimeout(watchdog);
}
process.exit(code);
