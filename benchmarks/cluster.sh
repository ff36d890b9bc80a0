#!/usr/bin/env bash
# A real Spark cluster on this machine: Spark's own standalone master and its workers on 127.0.0.1,
# started from the installed pyspark, and the lineage jobs run on it in both ways a cluster runs them.
#   benchmarks/cluster.sh up               start the master and the workers (idempotent); wait until usable
#   benchmarks/cluster.sh status           say what runs (exit 0 when all are up, 3 otherwise)
#   benchmarks/cluster.sh down             stop them all (idempotent)
#   benchmarks/cluster.sh submit ARGS...   spark-submit the lineage CLI with ARGS to the cluster
#                                          (the package as a zip on --py-files, GraphFrames with --jars)
#   benchmarks/cluster.sh demo [DIR]       up; `lineage demo --days 2`; build + blast-radius through
#                                          --spark-master and through spark-submit; down
# Settings: LINEAGE_PYTHON (default .venv/bin/python, else python3), LINEAGE_CLUSTER_DIR (state: logs,
# pid files, work dirs; default $LINEAGE_CACHE/cluster or ~/.cache/lineage/cluster),
# LINEAGE_CLUSTER_PORT (7077), LINEAGE_CLUSTER_UI_PORT (8080), LINEAGE_CLUSTER_WORKER_UI_PORT (8081; the
# next workers take the ports after it), LINEAGE_CLUSTER_WORKERS (1), LINEAGE_CLUSTER_CORES (per worker, 2),
# LINEAGE_CLUSTER_MEMORY (per worker: its own memory limit, 2g), LINEAGE_CLUSTER_TIMEOUT (90 s),
# LINEAGE_DRIVER_MEMORY / LINEAGE_EXECUTOR_MEMORY (spark-submit, 1g each); SPARK_CONF_DIR (submit: the job's
# conf dir, with its log4j2.properties and any spark-defaults.conf; default src/lineage/conf).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
HOST=127.0.0.1
PORT="${LINEAGE_CLUSTER_PORT:-7077}"
UI_PORT="${LINEAGE_CLUSTER_UI_PORT:-8080}"
WORKER_UI_PORT="${LINEAGE_CLUSTER_WORKER_UI_PORT:-8081}"
MASTER_URL="spark://$HOST:$PORT"
STATE="${LINEAGE_CLUSTER_DIR:-${LINEAGE_CACHE:-$HOME/.cache/lineage}/cluster}"
TIMEOUT="${LINEAGE_CLUSTER_TIMEOUT:-90}"
WORKERS="${LINEAGE_CLUSTER_WORKERS:-1}"
MASTER_CLASS=org.apache.spark.deploy.master.Master
WORKER_CLASS=org.apache.spark.deploy.worker.Worker

if [ -n "${LINEAGE_PYTHON:-}" ]; then PY="$LINEAGE_PYTHON"
elif [ -x "$ROOT/${LINEAGE_VENV:-.venv}/bin/python" ]; then PY="$ROOT/${LINEAGE_VENV:-.venv}/bin/python"
else PY=python3; fi

# own session, so a Ctrl-C or a killed process group of the caller does not take the daemons down
DETACH="$(command -v setsid || true)"

die() { echo "cluster: $*" >&2; exit 1; }
say() { echo "cluster: $*" >&2; }
[[ "$WORKERS" =~ ^[1-9][0-9]*$ ]] || die "LINEAGE_CLUSTER_WORKERS must be a whole number of workers (1 or more), not '$WORKERS'"

# the workers' names (pid and log files): worker, worker2, worker3, ...
worker_names() { local i; for i in $(seq 1 "$WORKERS"); do if [ "$i" = 1 ]; then echo worker; else echo "worker$i"; fi; done; }
# every worker with a pid file, whatever LINEAGE_CLUSTER_WORKERS says now (so `down` stops them all)
started_workers() { local f; for f in "$STATE"/worker*.pid; do [ -e "$f" ] && basename "$f" .pid; done; return 0; }

spark_home() {
  "$PY" -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))' 2>/dev/null \
    || die "pyspark is not importable by $PY (set LINEAGE_PYTHON, or run ./dev setup)"
}

# this checkout's lineage, whatever the caller's PYTHONPATH says
lineage_py() { PYTHONPATH="$ROOT/src" "$PY" -c "$1"; }

pid_of() { cat "$STATE/$1.pid" 2>/dev/null || true; }

# running = the pid file names a live process of the expected Spark class (not a recycled pid)
running() {
  local pid args; pid="$(pid_of "$1")"
  [ -n "$pid" ] || return 1
  if [ -r "/proc/$pid/cmdline" ]; then args="$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" || return 1
  else args="$(ps -o args= -p "$pid" 2>/dev/null)" || return 1; fi
  [[ "$args" == *"$2"* ]]
}

listening() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

# "STATUS ALIVE_WORKERS" from the master's JSON page, or nothing while it does not answer
master_state() {
  "$PY" - "$UI_PORT" 2>/dev/null <<'EOF' || true
import json, sys, urllib.request
doc = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/json/", timeout=2))
print(doc.get("status"), sum(w.get("state") == "ALIVE" for w in doc.get("workers", [])))
EOF
}

need_java() {
  local java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
  command -v "$java" >/dev/null 2>&1 \
    || die "Spark needs Java 17 (or 11): \`$java\` not found; install openjdk-17-jre-headless or set JAVA_HOME"
}

need_free() {  # port, what
  if listening "$1"; then
    die "port $1 ($2) is already in use by another process; stop it or choose another port (LINEAGE_CLUSTER_*PORT)"
  fi
}

# start NAME CLASS ARGS...: one Spark daemon, detached (own session), output to STATE/NAME.log
start() {
  local name="$1" class="$2"; shift 2
  mkdir -p "$STATE"
  # The daemons (and so the executors they launch) get neither the caller's PYTHONPATH nor its
  # Spark conf dir: executors import only what a job ships them, as on a real cluster.
  env -u PYTHONPATH -u SPARK_CONF_DIR SPARK_HOME="$SPARK_HOME" SPARK_LOCAL_IP="$HOST" \
    SPARK_LOCAL_DIRS="$STATE/local" SPARK_DAEMON_MEMORY="${SPARK_DAEMON_MEMORY:-512m}" \
    $DETACH nohup "$SPARK_HOME/bin/spark-class" "$class" "$@" >"$STATE/$name.log" 2>&1 </dev/null &
  echo $! >"$STATE/$name.pid"
}

log_tail() { for name in master $(worker_names); do [ -f "$STATE/$name.log" ] && { echo "--- $STATE/$name.log" >&2; tail -n 20 "$STATE/$name.log" >&2; }; done; return 0; }

up() {
  need_java
  SPARK_HOME="$(spark_home)"
  if running master "$MASTER_CLASS"; then
    say "master already running (pid $(pid_of master))"
  else
    need_free "$PORT" "master"; need_free "$UI_PORT" "master web UI"
    start master "$MASTER_CLASS" --host "$HOST" --port "$PORT" --webui-port "$UI_PORT"
  fi
  local name ui="$WORKER_UI_PORT"
  for name in $(worker_names); do  # each its own JVM with its own memory limit, its own UI port
    if running "$name" "$WORKER_CLASS"; then
      say "$name already running (pid $(pid_of "$name"))"
    else
      need_free "$ui" "$name web UI"
      start "$name" "$WORKER_CLASS" "$MASTER_URL" --host "$HOST" --webui-port "$ui" \
        --cores "${LINEAGE_CLUSTER_CORES:-2}" --memory "${LINEAGE_CLUSTER_MEMORY:-2g}" --work-dir "$STATE/work/$name"
    fi
    ui=$((ui + 1))
  done
  local deadline=$((SECONDS + TIMEOUT)) state=""
  while :; do
    state="$(master_state)"
    [ "${state%% *}" = ALIVE ] && [ "${state##* }" -ge "$WORKERS" ] 2>/dev/null && break
    running master "$MASTER_CLASS" || { log_tail; die "the master exited; its log is above"; }
    for name in $(worker_names); do
      running "$name" "$WORKER_CLASS" || { log_tail; die "$name exited; its log is above"; }
    done
    [ "$SECONDS" -lt "$deadline" ] || { log_tail; die "no live master with $WORKERS registered worker(s) after ${TIMEOUT}s (state: ${state:-no answer on port $UI_PORT})"; }
    sleep 1
  done
  say "up: $MASTER_URL (web UI http://$HOST:$UI_PORT), $WORKERS worker(s); logs in $STATE"
}

stop() {  # NAME CLASS
  if running "$1" "$2"; then
    local pid; pid="$(pid_of "$1")"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do running "$1" "$2" || break; sleep 0.5; done
    if running "$1" "$2"; then kill -KILL "$pid" 2>/dev/null || true; fi
    say "$1 stopped (pid $pid)"
  fi
  rm -f "$STATE/$1.pid"
}

down() {
  local name
  for name in $(started_workers); do stop "$name" "$WORKER_CLASS"; done  # first, so the master does not wait for them to re-register
  stop master "$MASTER_CLASS"
}

status() {
  local ok=0
  if running master "$MASTER_CLASS"; then say "master: running (pid $(pid_of master)), $MASTER_URL"; else say "master: not running"; ok=3; fi
  local name
  for name in $(worker_names); do
    if running "$name" "$WORKER_CLASS"; then say "$name: running (pid $(pid_of "$name"))"; else say "$name: not running"; ok=3; fi
  done
  [ "$ok" = 0 ] && say "master state (status, live workers): $(master_state)"
  return "$ok"
}

submit() {
  SPARK_HOME="$(spark_home)"
  local jar zip
  jar="$(lineage_py 'from lineage.spark import graphframes_jar; print(graphframes_jar())')"
  zip="$(lineage_py 'from lineage.spark import package_zip; print(package_zip())')"
  # The jar goes on --py-files too: it carries the graphframes Python package for the driver.
  env -u PYTHONPATH SPARK_HOME="$SPARK_HOME" SPARK_CONF_DIR="${SPARK_CONF_DIR:-$ROOT/src/lineage/conf}" SPARK_LOCAL_IP="$HOST" \
    PYSPARK_PYTHON="${PYSPARK_PYTHON:-$PY}" \
    "$SPARK_HOME/bin/spark-submit" --master "$MASTER_URL" --name "lineage ${1:-}" \
    --driver-memory "${LINEAGE_DRIVER_MEMORY:-1g}" --executor-memory "${LINEAGE_EXECUTOR_MEMORY:-1g}" \
    --py-files "$zip,$jar" --jars "$jar" \
    "$ROOT/src/lineage/__main__.py" "$@"
}

demo() {
  local out="${1:-$(mktemp -d)/cluster-demo}"
  up
  trap down EXIT
  lineage() { PYTHONPATH="$ROOT/src" "$PY" -m lineage "$@"; }
  lineage demo --out "$out/local" --days 2 >/dev/null
  for way in master submit; do
    mkdir -p "$out/$way/warehouse"
    cp -r "$out/local/warehouse/events" "$out/local/warehouse/aliases.csv" "$out/$way/warehouse/"
  done
  say "build and blast radius with --spark-master $MASTER_URL"
  lineage --spark-master "$MASTER_URL" build --warehouse "$out/master/warehouse"
  lineage --spark-master "$MASTER_URL" blast-radius --engine spark --warehouse "$out/master/warehouse" --top 5
  say "build and blast radius through spark-submit"
  submit build --warehouse "$out/submit/warehouse"
  submit blast-radius --engine spark --warehouse "$out/submit/warehouse" --top 5
  say "demo done: warehouses in $out (local = local[2], master = --spark-master, submit = spark-submit)"
}

cmd="${1:-help}"; shift || true
case "$cmd" in
  up) up ;;
  down) down ;;
  status) status ;;
  submit) submit "$@" ;;
  demo) demo "$@" ;;
  *) sed -n '2,16p' "$0" >&2; exit 2 ;;
esac
