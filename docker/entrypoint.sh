#!/usr/bin/env bash
# Dentate as a HippoCamp container: indexes the profile mounted at $DENTATE_DATA_DIR
# (incrementally, into $DENTATE_INDEX_DIR), serves it with dentate-searchd, then runs
# the given command (e.g. `list_files '*.pdf'`) and stops, or with no command keeps
# serving until the container stops. HippoCamp's agents then run their terminal
# commands in it with `docker exec` (`--container NAME`).
#
# Environment (defaults are the image's layout):
#   DENTATE_DATA_DIR   the profile                      /hippocamp/data
#   DENTATE_INDEX_DIR  the index (a volume keeps it)    /hippocamp/index
#   DENTATE_HTTP_ADDR  HTTP address                     0.0.0.0:8080
#   DENTATE_GRPC_ADDR  gRPC address                     0.0.0.0:50051
#   DENTATE_INDEX_ARGS extra dentate-index arguments    (none; e.g. "--no-media")
#   DENTATE_BIN_DIR    folder of the binaries           (found on PATH)
#   DENTATE_KEYS       an API key file mounted in       (none: no keys, see below)
#   DENTATE_ALLOW_HOSTS host names clients use besides localhost and IPs (e.g. the
#                      container's name on a docker network), comma-separated
# The daemon listens on all of the container's interfaces; `docker run -p` decides
# who reaches them. Without DENTATE_KEYS it runs without keys (--insecure-no-auth), so
# publish the port on loopback only (`-p 127.0.0.1:18082:8080`) or give a key file.
# Progress and the index summary go to stderr, so a command's stdout stays one JSON
# object. Exit status: the command's, or 1 when the profile cannot be indexed or
# served.
set -uo pipefail

data=${DENTATE_DATA_DIR:-/hippocamp/data}
index=${DENTATE_INDEX_DIR:-/hippocamp/index}
http_addr=${DENTATE_HTTP_ADDR:-0.0.0.0:8080}
grpc_addr=${DENTATE_GRPC_ADDR:-0.0.0.0:50051}
bin=${DENTATE_BIN_DIR:+${DENTATE_BIN_DIR%/}/}

fail() {
  echo "dentate-entrypoint: $*" >&2
  exit 1
}

[ -d "$data" ] || fail "no profile at $data (mount one: -v /path/to/profile:$data:ro)"
mkdir -p "$index" || fail "cannot create the index folder $index"

# shellcheck disable=SC2086 # DENTATE_INDEX_ARGS is a list of flags
"${bin}dentate-index" "$data" --index "$index" ${DENTATE_INDEX_ARGS:-} >&2
status=$?
# 2: the run completed with some files failed (listed in the summary above).
[ $status -eq 0 ] || [ $status -eq 2 ] || fail "indexing $data failed (exit $status)"

log="$index/searchd.log"
auth=(--insecure-no-auth)
[ -n "${DENTATE_KEYS:-}" ] && auth=() # dentate-searchd reads DENTATE_KEYS itself
"${bin}dentate-searchd" --index "$index" --http-addr "$http_addr" --grpc-addr "$grpc_addr" "${auth[@]}" >"$log" 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null' EXIT
trap 'exit 143' TERM INT
for _ in $(seq 1 600); do
  grep -q '^listening' "$log" && break
  kill -0 $daemon 2>/dev/null || { cat "$log" >&2; fail "dentate-searchd exited"; }
  sleep 0.1
done
grep -q '^listening' "$log" || fail "dentate-searchd did not start within 60 s"
bound=$(sed -n 's/.*http=\([^ ]*\).*/\1/p' "$log" | head -1)
host=${bound%:*}
port=${bound##*:}
case "$host" in 0.0.0.0 | "[::]") host=127.0.0.1 ;; esac
export DENTATE_URL=${DENTATE_URL:-http://$host:$port}
export DENTATE_DATA_DIR=$data
echo "dentate-entrypoint: serving $data on http://$bound (gRPC ${grpc_addr})" >&2

if [ $# -gt 0 ]; then
  "$@"
  exit $?
fi
wait $daemon
