#!/usr/bin/env bash
# Local infrastructure for dev and integration tests: PostgreSQL, Redis, a real
# Apache Kafka broker and Temporal's Java test server.
#
# Kafka and Temporal run straight from jars fetched off Maven Central (see
# infra/*/pom.xml), because the machines this project runs on have Java and
# Maven but usually no Docker engine. Only poms and scripts are committed;
# everything this script writes goes under .infra/.
#
# Usage: scripts/infra.sh fetch|up|down|status|stop-kafka|start-kafka|stop-temporal|start-temporal
#
# Environment:
#   KAFKA_PORT (9092, plaintext), KAFKA_SASL_PORT (9094, SASL/SCRAM with ACLs),
#   KAFKA_CONTROLLER_PORT (9093), TEMPORAL_PORT (7233),
#   REDIS_PORT (6379), INFRA_TIMEOUT (90 s per component), INFRA_VERBOSE=1
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# The readiness scripts import kafkajs/@temporalio/client from the repo's node_modules.
cd "$ROOT"

INFRA="$ROOT/.infra"
RUN="$INFRA/run"
STARTED="$RUN/started"

PG_PORT=5432
REDIS_PORT="${REDIS_PORT:-6379}"
KAFKA_PORT="${KAFKA_PORT:-9092}"
KAFKA_SASL_PORT="${KAFKA_SASL_PORT:-9094}"
KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
TEMPORAL_PORT="${TEMPORAL_PORT:-7233}"
TIMEOUT="${INFRA_TIMEOUT:-90}"

KAFKA_RUN="$RUN/kafka"
KAFKA_DATA="$KAFKA_RUN/data"
# Outside .infra/run so `down` (which wipes the run dir's Kafka data) keeps it:
# the cluster id is generated once per checkout.
KAFKA_CLUSTER_ID_FILE="$INFRA/kafka/cluster-id"
TEMPORAL_RUN="$RUN/temporal"
REDIS_RUN="$RUN/redis"

log() { echo "infra: $*" >&2; }
die() { echo "infra: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

# ---------------------------------------------------------------------------
# Small helpers

# True if something accepts TCP connections on 127.0.0.1:$1. Uses bash's
# /dev/tcp so it needs no nc/ss; `timeout` guards against a filtered port.
port_open() {
  timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# The started-by-us record: one component name per line. Only what is listed
# here is ever stopped, so a developer's own Postgres/Redis survive `down`.
mark_started() {
  mkdir -p "$RUN"
  grep -qx "$1" "$STARTED" 2>/dev/null || echo "$1" >>"$STARTED"
}
was_started() { grep -qx "$1" "$STARTED" 2>/dev/null; }
# Docker fallback entries are recorded as docker:<service>.
docker_mode() { grep -q '^docker:' "$STARTED" 2>/dev/null; }

# Pid from a pid file, but only if that process is still the one we launched
# (its command line carries our marker), so a recycled pid is never signalled.
live_pid() { # pidfile marker
  local pid
  [[ -f "$1" ]] || return 1
  pid="$(cat "$1" 2>/dev/null)" || return 1
  [[ -n "$pid" && -r "/proc/$pid/cmdline" ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$2" || return 1
  echo "$pid"
}

# SIGTERM first so Kafka can close its logs cleanly (a clean shutdown is what
# lets start-kafka come back quickly with topics and offsets intact); SIGKILL
# only if it hangs.
stop_pid() { # pid name
  local pid="$1" name="$2" i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 300; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  log "$name (pid $pid) ignored SIGTERM for 30 s; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
}

# Poll a readiness command until it succeeds or the deadline passes. Exit code 2
# from the node readiness scripts means "can never succeed" (missing module).
# With a pid, a process that has already died (port clash, bad config) fails at
# once instead of after the whole timeout.
wait_ready() { # name logfile pid|"" cmd...
  local name="$1" logfile="$2" pid="$3" rc
  shift 3
  local deadline=$((SECONDS + TIMEOUT))
  while :; do
    rc=0
    "$@" || rc=$?
    [[ $rc -eq 0 ]] && return 0
    [[ $rc -eq 2 ]] && die "$name: readiness check cannot run (see message above)"
    if [[ -n "$pid" ]] && ! kill -0 "$pid" 2>/dev/null; then
      log "$name exited during start-up"
      show_log "$logfile"
      exit 1
    fi
    if ((SECONDS >= deadline)); then
      log "$name not ready after ${TIMEOUT}s"
      show_log "$logfile"
      exit 1
    fi
    sleep 0.5
  done
}

show_log() {
  [[ -n "$1" && -f "$1" ]] || return 0
  log "last lines of $1:"
  tail -n 40 "$1" >&2
}

kafka_ready() { KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT" node scripts/infra/kafka-ready.mjs; }
# The SASL side (users, ACLs from libs/contracts/src/kafka-access.ts): see the script's header.
kafka_access() {
  KAFKA_BROKERS="127.0.0.1:$KAFKA_PORT" KAFKA_SASL_PORT="$KAFKA_SASL_PORT" \
    node -r @swc-node/register scripts/infra/kafka-access.ts "$@"
}
temporal_ready() { TEMPORAL_ADDRESS="127.0.0.1:$TEMPORAL_PORT" node scripts/infra/temporal-ready.mjs; }

# Launch a long-running process detached from our session: setsid so Ctrl-C in
# the terminal, or a CI runner killing the caller's process group, does not take
# the broker down with it; the inner shell writes its own pid and then execs, so
# the pid file holds the JVM's pid whether or not setsid had to fork.
spawn() { # pidfile logfile cmd...
  local pidfile="$1" logfile="$2"
  shift 2
  # A stale pid file from a crashed run would look like a fresh one below.
  rm -f "$pidfile"
  # Append, so the log of a broker killed by stop-kafka survives its restart.
  echo "--- infra.sh: starting at $(date -Is): $*" >>"$logfile"
  # The inner shell also closes every other descriptor it inherited before the exec: a server
  # holding its launcher's pipe or lock file would keep a CI step waiting, or a lock held, for as
  # long as it runs.
  # shellcheck disable=SC2016 # $$ and $@ are meant for the inner shell
  setsid bash -c 'echo $$ >"$0"
    for fd in /proc/$$/fd/*; do fd=${fd##*/}; if ((fd > 2)); then eval "exec $fd>&-"; fi; done
    exec "$@"' "$pidfile" "$@" \
    </dev/null >>"$logfile" 2>&1 &
  # Give the inner shell a moment to write the pid file.
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -s "$pidfile" ]] && return 0
    sleep 0.05
  done
  die "could not start: $*"
}

# ---------------------------------------------------------------------------
# fetch: Maven Central -> .infra/<x>/libs, skipped when the pom is unchanged.

fetch_one() { # name
  local name="$1" pom="$ROOT/infra/$1/pom.xml"
  local libs="$INFRA/$1/libs" stamp="$INFRA/$1/libs.sha256"
  local want
  want="$(sha256sum "$pom" | cut -d' ' -f1)"
  if [[ -d "$libs" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    return 0
  fi
  mkdir -p "$INFRA/$name"
  have mvn || die "$name jars are missing and mvn is not installed: apt-get install maven"
  log "fetching $name jars from Maven Central (infra/$name/pom.xml)"
  # Copy into a temp dir and swap, so an interrupted fetch never leaves a
  # half-filled libs dir that a later run would mistake for a complete one, and
  # jars dropped from the pom do not linger on the classpath.
  rm -rf "$libs.tmp"
  # Output goes to a log and is shown only on failure: Maven 3.8 prints stray
  # ANSI resets even with -B -q, and a successful fetch has nothing to say.
  if ! mvn -B -q -f "$pom" dependency:copy-dependencies -DoutputDirectory="$libs.tmp" \
    >"$INFRA/$name/fetch.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$INFRA/$name/fetch.log" >&2
    die "$name: mvn dependency:copy-dependencies failed (full log: .infra/$name/fetch.log)"
  fi
  rm -rf "$libs"
  mv "$libs.tmp" "$libs"
  echo "$want" >"$stamp"
}

fetched() { # name — true if libs are present and match the pom
  local stamp="$INFRA/$1/libs.sha256"
  [[ -d "$INFRA/$1/libs" && -f "$stamp" ]] &&
    [[ "$(cat "$stamp")" == "$(sha256sum "$ROOT/infra/$1/pom.xml" | cut -d' ' -f1)" ]]
}

cmd_fetch() {
  fetch_one kafka
  fetch_one temporal
}

# ---------------------------------------------------------------------------
# PostgreSQL and Redis: the machine's own packages, started only if not running.

pg_version() {
  [[ -d /etc/postgresql ]] || return 1
  # Several installed majors: take the newest, which is what apt installed last.
  # shellcheck disable=SC2012 # version dir names are plain numbers
  ls /etc/postgresql | sort -V | tail -n 1
}

up_postgres() {
  if port_open "$PG_PORT"; then
    log "postgres: already running on 127.0.0.1:$PG_PORT, using it"
    return 0
  fi
  local ver
  if ! have pg_ctlcluster || ! ver="$(pg_version)" || [[ -z "$ver" ]]; then
    die "postgres is not running and not installed: apt-get install postgresql"
  fi
  log "postgres: starting cluster $ver/main"
  # --skip-systemctl-redirect: there is no systemd in containers/CI.
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start
  mark_started postgres
  wait_ready postgres "/var/log/postgresql/postgresql-$ver-main.log" "" port_open "$PG_PORT"
}

down_postgres() {
  was_started postgres || return 0
  local ver
  if ver="$(pg_version)"; then
    log "postgres: stopping cluster $ver/main"
    pg_ctlcluster --skip-systemctl-redirect "$ver" main stop || true
  fi
}

up_redis() {
  if port_open "$REDIS_PORT"; then
    log "redis: already running on 127.0.0.1:$REDIS_PORT, using it"
    return 0
  fi
  have redis-server || die "redis is not running and not installed: apt-get install redis-server"
  mkdir -p "$REDIS_RUN"
  log "redis: starting on 127.0.0.1:$REDIS_PORT"
  # No RDB/AOF: test data is throwaway and disk writes only slow things down.
  redis-server --daemonize yes --bind 127.0.0.1 --port "$REDIS_PORT" \
    --save "" --appendonly no --dir "$REDIS_RUN" \
    --logfile "$REDIS_RUN/redis.log" --pidfile "$REDIS_RUN/redis.pid"
  mark_started redis
  wait_ready redis "$REDIS_RUN/redis.log" "" port_open "$REDIS_PORT"
}

down_redis() {
  was_started redis || return 0
  local pid
  if pid="$(live_pid "$REDIS_RUN/redis.pid" redis-server)"; then
    log "redis: stopping (pid $pid)"
    stop_pid "$pid" redis
  fi
  rm -f "$REDIS_RUN/redis.pid"
}

# ---------------------------------------------------------------------------
# Kafka

kafka_cluster_id() {
  if [[ ! -s "$KAFKA_CLUSTER_ID_FILE" ]]; then
    mkdir -p "$(dirname "$KAFKA_CLUSTER_ID_FILE")"
    local id
    # Same shape as Kafka's Uuid: 16 random bytes, base64url, no padding (22
    # chars). Kafka never hands out ids starting with '-' because the CLI would
    # read them as flags, so neither do we.
    while :; do
      id="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
      [[ "$id" != -* ]] && break
    done
    echo "$id" >"$KAFKA_CLUSTER_ID_FILE"
  fi
  cat "$KAFKA_CLUSTER_ID_FILE"
}

# The JVM command line shared by the storage formatter and the broker.
# -Dinfra.component marks the process so live_pid never mistakes another JVM for
# ours. Logging goes to stdout (captured in kafka.log) via the generated log4j
# config; without one reload4j prints only "no appenders" warnings.
kafka_java() {
  KAFKA_JAVA=(java -Xms256m -Xmx512m -Dinfra.component=kafka
    -Dlog4j.configuration="file:$KAFKA_RUN/log4j.properties"
    -cp "$INFRA/kafka/libs/*")
}

kafka_prepare() {
  mkdir -p "$KAFKA_DATA"
  sed -e "s|\${KAFKA_PORT}|$KAFKA_PORT|g" \
    -e "s|\${KAFKA_SASL_PORT}|$KAFKA_SASL_PORT|g" \
    -e "s|\${KAFKA_CONTROLLER_PORT}|$KAFKA_CONTROLLER_PORT|g" \
    -e "s|\${KAFKA_DATA_DIR}|$KAFKA_DATA|g" \
    "$ROOT/infra/kafka/server.properties.template" >"$KAFKA_RUN/server.properties"
  # Kafka's jars ship no log4j config (the tarball's config/ dir does). INFO for
  # the broker's own lifecycle, WARN for the per-partition chatter.
  cat >"$KAFKA_RUN/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka.server.KafkaConfig=WARN
log4j.logger.kafka.log=WARN
log4j.logger.org.apache.kafka.storage=WARN
log4j.logger.kafka.cluster.Partition=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.request.logger=WARN
log4j.logger.kafka.controller=WARN
log4j.logger.org.apache.kafka.controller=WARN
log4j.logger.org.apache.kafka.clients=WARN
log4j.logger.org.apache.kafka.common.config=WARN
log4j.logger.org.apache.kafka.common.utils.AppInfoParser=WARN
EOF
  # After stop-kafka the existing storage (topics, offsets) must be reused, and
  # skipping the formatter then saves a JVM start (~1 s) per restart.
  # --ignore-formatted keeps a rerun harmless all the same.
  [[ -f "$KAFKA_DATA/meta.properties" ]] && return 0
  # The SCRAM users go into the fresh metadata log with the format, so the SASL
  # listener needs no extra JVM start to get them (kafka_sasl_setup covers older storage).
  local scram=()
  mapfile -t scram < <(kafka_access format-args) && ((${#scram[@]})) ||
    die "kafka: could not list the SCRAM users (scripts/infra/kafka-access.ts format-args)"
  kafka_java
  "${KAFKA_JAVA[@]}" kafka.tools.StorageTool format -t "$(kafka_cluster_id)" \
    -c "$KAFKA_RUN/server.properties" --ignore-formatted "${scram[@]}" >"$KAFKA_RUN/format.log" 2>&1 ||
    { cat "$KAFKA_RUN/format.log" >&2; die "kafka: formatting storage failed"; }
}

# Users and ACLs of the SASL listener, on a broker of ours that is ready. Users a
# storage formatted before they existed lacks are added with Kafka's kafka-configs
# tool (ConfigCommand, one JVM each); the ACLs are synced to the matrix every time.
kafka_sasl_setup() {
  local missing line user value
  wait_ready "kafka SASL listener" "$KAFKA_RUN/kafka.log" "" port_open "$KAFKA_SASL_PORT"
  missing="$(kafka_access missing-users)" ||
    die "kafka: the SASL listener on 127.0.0.1:$KAFKA_SASL_PORT does not answer"
  while IFS= read -r line; do
    [[ -n "$line" ]] || continue
    user="${line%%$'\t'*}" value="${line#*$'\t'}"
    log "kafka: adding SCRAM user $user"
    kafka_java
    "${KAFKA_JAVA[@]}" kafka.admin.ConfigCommand --bootstrap-server "127.0.0.1:$KAFKA_PORT" \
      --alter --entity-type users --entity-name "$user" --add-config "$value" \
      >>"$KAFKA_RUN/scram.log" 2>&1 ||
      { tail -n 20 "$KAFKA_RUN/scram.log" >&2; die "kafka: could not add SCRAM user $user"; }
  done <<<"$missing"
  kafka_access apply-acls || die "kafka: could not apply the ACLs"
  # New credentials reach the listener through the metadata log a moment later.
  wait_ready "kafka SASL logins" "$KAFKA_RUN/kafka.log" "" kafka_access check
}

up_kafka() {
  local pid="" logfile="$KAFKA_RUN/kafka.log"
  if pid="$(live_pid "$KAFKA_RUN/kafka.pid" infra.component=kafka)"; then
    # Ours and still starting (or restarting): just wait for it.
    log "kafka: already started by infra.sh (pid $pid)"
  elif port_open "$KAFKA_PORT"; then
    log "kafka: something already listens on 127.0.0.1:$KAFKA_PORT, using it"
    pid="" logfile=""
  else
    fetch_one kafka
    mkdir -p "$KAFKA_RUN"
    kafka_prepare
    log "kafka: starting on 127.0.0.1:$KAFKA_PORT (controller $KAFKA_CONTROLLER_PORT)"
    kafka_java
    spawn "$KAFKA_RUN/kafka.pid" "$KAFKA_RUN/kafka.log" \
      "${KAFKA_JAVA[@]}" kafka.Kafka "$KAFKA_RUN/server.properties"
    pid="$(cat "$KAFKA_RUN/kafka.pid")"
    mark_started kafka
  fi
  # Even a broker we did not start may still be booting (e.g. a container).
  local t0=$SECONDS
  wait_ready kafka "$logfile" "$pid" kafka_ready
  if [[ -n "$pid" ]]; then
    kafka_sasl_setup
    log "kafka: ready on 127.0.0.1:$KAFKA_PORT, SASL/SCRAM on 127.0.0.1:$KAFKA_SASL_PORT ($((SECONDS - t0))s)"
  else
    # Not ours: its users and ACLs are its owner's business.
    log "kafka: ready on 127.0.0.1:$KAFKA_PORT ($((SECONDS - t0))s); SASL users/ACLs left as they are"
  fi
}

stop_kafka_process() {
  local pid
  if pid="$(live_pid "$KAFKA_RUN/kafka.pid" infra.component=kafka)"; then
    log "kafka: stopping (pid $pid)"
    stop_pid "$pid" kafka
  fi
  rm -f "$KAFKA_RUN/kafka.pid"
}

down_kafka() {
  was_started kafka || return 0
  stop_kafka_process
  # Each `up` gets a clean broker: no topics, offsets or groups from the last
  # run. The log stays for post-mortems.
  rm -rf "$KAFKA_DATA"
}

# ---------------------------------------------------------------------------
# Temporal (Java test server: in-memory, so a restart loses all workflows)

up_temporal() {
  local pid="" logfile="$TEMPORAL_RUN/temporal.log"
  if pid="$(live_pid "$TEMPORAL_RUN/temporal.pid" infra.component=temporal)"; then
    log "temporal: already started by infra.sh (pid $pid)"
  elif port_open "$TEMPORAL_PORT"; then
    log "temporal: something already listens on 127.0.0.1:$TEMPORAL_PORT, using it"
    pid="" logfile=""
  else
    fetch_one temporal
    mkdir -p "$TEMPORAL_RUN"
    log "temporal: starting test server on 127.0.0.1:$TEMPORAL_PORT"
    # No --enable-time-skipping: the app needs timers that fire in real time,
    # like a real cluster.
    spawn "$TEMPORAL_RUN/temporal.pid" "$TEMPORAL_RUN/temporal.log" \
      java -Xmx512m -Dinfra.component=temporal \
      -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
      -Dorg.slf4j.simpleLogger.showDateTime=true \
      -cp "$INFRA/temporal/libs/*" io.temporal.testserver.TestServer "$TEMPORAL_PORT"
    pid="$(cat "$TEMPORAL_RUN/temporal.pid")"
    mark_started temporal
  fi
  local t0=$SECONDS
  wait_ready temporal "$logfile" "$pid" temporal_ready
  log "temporal: ready on 127.0.0.1:$TEMPORAL_PORT ($((SECONDS - t0))s)"
}

stop_temporal_process() {
  local pid
  if pid="$(live_pid "$TEMPORAL_RUN/temporal.pid" infra.component=temporal)"; then
    log "temporal: stopping (pid $pid)"
    stop_pid "$pid" temporal
  fi
  rm -f "$TEMPORAL_RUN/temporal.pid"
}

down_temporal() {
  was_started temporal || return 0
  stop_temporal_process
}

# ---------------------------------------------------------------------------
# Toolchain check and the Docker fallback

# Native mode needs java, plus mvn unless the jars are already fetched and current.
native_missing() {
  local missing=()
  have java || missing+=(openjdk-17-jre-headless)
  if ! have mvn && ! { fetched kafka && fetched temporal; }; then
    missing+=(maven)
  fi
  echo "${missing[*]}"
}

docker_usable() { have docker && docker info >/dev/null 2>&1; }

use_docker() {
  [[ -z "$(native_missing)" ]] && return 1
  docker_usable && return 0
  echo "infra: need Java and Maven to run Kafka/Temporal (or a working Docker engine): apt-get install $(native_missing)" >&2
  exit 1
}

docker_up() {
  # Same rule as native mode: a service whose port already answers is used as is,
  # so a host Postgres/Redis is never shadowed by a container on the same port.
  local services=() svc port
  for svc in postgres redis kafka temporal; do
    case "$svc" in
      postgres) port=$PG_PORT ;; redis) port=$REDIS_PORT ;;
      kafka) port=$KAFKA_PORT ;; temporal) port=$TEMPORAL_PORT ;;
    esac
    if port_open "$port"; then
      log "$svc: already running on 127.0.0.1:$port, using it"
    else
      services+=("$svc")
    fi
  done
  if ((${#services[@]})); then
    log "java/mvn missing; starting ${services[*]} with docker compose"
    docker compose up -d "${services[@]}"
    for svc in "${services[@]}"; do mark_started "docker:$svc"; done
  fi
  wait_ready postgres "" "" port_open "$PG_PORT"
  wait_ready redis "" "" port_open "$REDIS_PORT"
  wait_ready kafka "" "" kafka_ready
  wait_ready temporal "" "" temporal_ready
}

# ---------------------------------------------------------------------------
# Commands

cmd_up() {
  mkdir -p "$RUN"
  have node || die "node is required for the readiness checks: install Node.js >= 20"
  if use_docker; then
    docker_up
    return
  fi
  # Fetch first so a missing/changed pom fails before anything is started.
  cmd_fetch
  up_postgres
  up_redis
  up_kafka
  up_temporal
  log "all up"
}

cmd_down() {
  if docker_mode; then
    local ours
    mapfile -t ours < <(sed -n 's/^docker://p' "$STARTED")
    if ((${#ours[@]} == 4)); then
      docker compose down
    else
      # A plain `down` would also remove containers someone else started from
      # the same compose file (say, their own postgres); remove only ours.
      docker compose rm --stop --force --volumes "${ours[@]}"
    fi
  fi
  # Each JVM takes ~2 s to shut down cleanly, so stop them side by side; the
  # down_* functions leave the record alone (no concurrent writers), and it is
  # dropped once everything listed in it has been stopped.
  local pids=() p
  down_temporal & pids+=($!)
  down_kafka & pids+=($!)
  down_redis & pids+=($!)
  for p in "${pids[@]}"; do wait "$p"; done
  # Last, so nothing we started is still talking to it.
  down_postgres
  rm -f "$STARTED"
  log "down (only what infra.sh had started was stopped)"
}

# stop-/start-kafka simulate a broker outage for tests. Storage is kept, so the
# broker comes back with the same topics, committed offsets and cluster id.
cmd_stop_kafka() {
  if was_started docker:kafka; then
    docker compose stop kafka
    return
  fi
  was_started kafka ||
    die "kafka on 127.0.0.1:$KAFKA_PORT was not started by infra.sh; not stopping it"
  stop_kafka_process
}

cmd_start_kafka() {
  if was_started docker:kafka; then
    docker compose start kafka
    wait_ready kafka "" "" kafka_ready
    return
  fi
  use_docker && die "start-kafka without java: run scripts/infra.sh up"
  up_kafka
}

cmd_stop_temporal() {
  if was_started docker:temporal; then
    docker compose stop temporal
    return
  fi
  was_started temporal ||
    die "temporal on 127.0.0.1:$TEMPORAL_PORT was not started by infra.sh; not stopping it"
  stop_temporal_process
}

cmd_start_temporal() {
  if was_started docker:temporal; then
    docker compose start temporal
    wait_ready temporal "" "" temporal_ready
    return
  fi
  use_docker && die "start-temporal without java: run scripts/infra.sh up"
  up_temporal
}

status_line() { # name port pidfile marker [component, when not the name]
  local name="$1" port="$2" pidfile="$3" marker="$4" component="${5:-$1}" state who pid=""
  if port_open "$port"; then state=up; else state=down; fi
  if was_started "docker:$component"; then
    who="docker compose, started by infra.sh"
  elif was_started "$component"; then
    who="started by infra.sh"
    if [[ -n "$pidfile" ]] && pid="$(live_pid "$pidfile" "$marker")"; then
      who+=", pid $pid"
    fi
  elif [[ $state == up ]]; then
    who="external"
  else
    who="-"
  fi
  printf '%-10s 127.0.0.1:%-5s %-4s %s\n' "$name" "$port" "$state" "$who"
}

cmd_status() {
  status_line postgres "$PG_PORT" "" ""
  status_line redis "$REDIS_PORT" "$REDIS_RUN/redis.pid" redis-server
  status_line kafka "$KAFKA_PORT" "$KAFKA_RUN/kafka.pid" infra.component=kafka
  # The same broker's SASL/SCRAM listener (users and ACLs of libs/contracts/src/kafka-access.ts).
  status_line kafka-sasl "$KAFKA_SASL_PORT" "$KAFKA_RUN/kafka.pid" infra.component=kafka kafka
  status_line temporal "$TEMPORAL_PORT" "$TEMPORAL_RUN/temporal.pid" infra.component=temporal
}

case "${1:-}" in
  fetch) cmd_fetch ;;
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  stop-kafka) cmd_stop_kafka ;;
  start-kafka) cmd_start_kafka ;;
  stop-temporal) cmd_stop_temporal ;;
  start-temporal) cmd_start_temporal ;;
  *)
    echo "usage: $0 fetch|up|down|status|stop-kafka|start-kafka|stop-temporal|start-temporal" >&2
    exit 2
    ;;
esac
