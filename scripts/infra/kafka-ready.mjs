// Exit 0 when the Kafka broker(s) in KAFKA_BROKERS answer a metadata request,
// 1 otherwise, 2 when kafkajs is not installed (so infra.sh can stop waiting).
//
// An open port is not enough: a KRaft broker accepts connections a while before
// it has caught up with its metadata log and unfenced itself, and clients that
// connect in that window get "leader not available" / "not controller" errors.
// describeCluster succeeds only once the broker serves real metadata.
//
// Run repeatedly by scripts/infra.sh, so it must fail fast and print little.

let kafkajs;
try {
  kafkajs = await import('kafkajs');
} catch {
  console.error('kafka-ready: kafkajs is not installed (run npm ci)');
  process.exit(2);
}
const { Kafka, logLevel } = kafkajs.default ?? kafkajs;

const brokers = (process.env.KAFKA_BROKERS || '127.0.0.1:9092')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);

const kafka = new Kafka({
  clientId: 'infra-ready',
  brokers,
  connectionTimeout: 1000,
  requestTimeout: 2000,
  // The caller loops with its own deadline; retrying here only hides progress.
  retry: { retries: 0 },
  logLevel: logLevel.NOTHING,
});

const admin = kafka.admin();
// A hung socket must not outlive the caller's poll interval.
const watchdog = setTimeout(() => {
  if (process.env.INFRA_VERBOSE) console.error('kafka-ready: timed out');
  process.exit(1);
}, 5000);

let code = 1;
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  if (cluster.brokers.length > 0) code = 0;
} catch (err) {
  if (process.env.INFRA_VERBOSE) console.error(`kafka-ready: ${err.message}`);
} finally {
  await admin.disconnect().catch(() => {});
  clearTimeout(watchdog);
}
process.exit(code);
