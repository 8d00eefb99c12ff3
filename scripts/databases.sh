#!/usr/bin/env bash
# Database servers for the agcore test suite: PostgreSQL 15 (with pgvector), MariaDB 10.11
# and Redis 7, on 127.0.0.1, each with its data and pid file under .services/.
#
#   scripts/databases.sh install                 install the servers and build pgvector (cached)
#   scripts/databases.sh start                   install when needed, start the three servers,
#                                                write .services/db.env, print `export` lines
#   scripts/databases.sh stop                    stop them (by pid file)
#   scripts/databases.sh status                  report; exit 0 when all run, 3 when not
#   scripts/databases.sh instance start KIND DIR PORT   a private server (KIND: postgres,
#                                                mariadb, redis) with its data in DIR; prints its URL
#   scripts/databases.sh instance stop KIND DIR  clean shutdown (data kept; start again resumes)
#   scripts/databases.sh instance kill KIND DIR  SIGKILL, as a crash would
#
# Ports: AGCORE_POSTGRES_PORT (55432), AGCORE_MARIADB_PORT (53306), AGCORE_REDIS_PORT (56379).
# State: AGCORE_SERVICES_DIR (default <repo>/.services). pgvector's source is read from
# AGCORE_SHARED_DIR/vendor/pgvector-0.8.6 (default <repo>/../shared). See docs/services.md.
set -euo pipefail

readonly PGVECTOR_VERSION="0.8.6"
script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(git -C "$script_dir" rev-parse --show-toplevel 2>/dev/null || (cd "$script_dir/.." && pwd))"
STATE="${AGCORE_SERVICES_DIR:-$repo_root/.services}"
SHARED="${AGCORE_SHARED_DIR:-$repo_root/../shared}"
ENV_FILE="$STATE/db.env"
PG_PORT="${AGCORE_POSTGRES_PORT:-55432}"
MARIADB_PORT="${AGCORE_MARIADB_PORT:-53306}"
REDIS_PORT="${AGCORE_REDIS_PORT:-56379}"

# shellcheck source=scripts/lib.sh
. "$script_dir/lib.sh"

is_root() { [ "$(id -u)" -eq 0 ]; }

# Runs a command as USER when root (servers refuse to run as root), else as ourselves.
run_as() {
    local user="$1"
    shift
    if is_root; then runuser -u "$user" -- "$@"; else "$@"; fi
}

own_dir() {
    local user="$1" dir="$2"
    mkdir -p "$dir"
    if is_root; then chown "$user" "$dir"; fi
}

wait_for() {
    local what="$1" timeout="$2" log_file="$3"
    shift 3
    local waited=0
    until "$@" >/dev/null 2>&1; do
        sleep 0.5
        waited=$((waited + 1))
        if [ "$waited" -ge $((timeout * 2)) ]; then
            [ -f "$log_file" ] && tail -n 30 "$log_file" >&2
            die "$what did not become ready within ${timeout}s (log: $log_file)"
        fi
    done
}

# ---------------------------------------------------------------- install

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

install_servers() {
    local missing=()
    [ -n "$(pg_bin)" ] || missing+=(postgresql)
    # pg_config alone may come from libpq-dev; pgvector needs the server headers.
    if ! command -v pg_config >/dev/null 2>&1 \
        || [ ! -f "$(pg_config --includedir-server)/postgres.h" ]; then
        missing+=(postgresql-server-dev-15)
    fi
    command -v mariadbd >/dev/null 2>&1 || missing+=(mariadb-server)
    command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
    command -v make >/dev/null 2>&1 || missing+=(make)
    if [ "${#missing[@]}" -gt 0 ]; then apt_install "${missing[@]}"; fi
    install_pgvector
}

install_pgvector() {
    local libdir
    libdir="$(pg_config --pkglibdir)"
    if [ -f "$libdir/vector.so" ] && [ -f "$(pg_config --sharedir)/extension/vector--$PGVECTOR_VERSION.sql" ]; then
        return
    fi
    local src="$SHARED/vendor/pgvector-$PGVECTOR_VERSION"
    [ -d "$src" ] || die "pgvector source not found at $src (set AGCORE_SHARED_DIR)"
    local build="$STATE/build/pgvector"
    rm -rf "$build"
    mkdir -p "$STATE/build"
    cp -r "$src" "$build"
    log "building pgvector $PGVECTOR_VERSION (log: $STATE/build/pgvector.log)"
    if ! (cd "$build" && make OPTFLAGS="" && $(sudo_cmd) make install) >"$STATE/build/pgvector.log" 2>&1; then
        tail -n 30 "$STATE/build/pgvector.log" >&2
        die "pgvector build failed (log: $STATE/build/pgvector.log)"
    fi
    log "pgvector $PGVECTOR_VERSION installed into $libdir"
}

# ---------------------------------------------------------------- PostgreSQL

pg_pid() { head -n 1 "$1/data/postmaster.pid" 2>/dev/null || true; }

pg_start() {
    local dir="$1" port="$2" bin
    bin="$(pg_bin)"
    own_dir postgres "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        run_as postgres "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 \
            --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1 ||
            die "initdb failed (log: $dir/initdb.log)"
    fi
    local pid
    pid="$(pg_pid "$dir")"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        log "postgres already running in $dir (pid $pid)"
    else
        rm -f "$dir/data/postmaster.pid"
        # fsync off: test data need not survive an OS crash; commits still survive a
        # killed server (synchronous_commit stays on).
        run_as postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 60 \
            -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=300" \
            start >&2 9>&- || {
            tail -n 30 "$dir/log" >&2
            die "postgres did not start (log: $dir/log)"
        }
    fi
    run_as postgres "$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -d template1 -qAt \
        -c "CREATE EXTENSION IF NOT EXISTS vector" >/dev/null 2>&1 ||
        log "warning: CREATE EXTENSION vector failed in template1 (is pgvector installed?)"
    echo "postgres://postgres@127.0.0.1:$port/postgres"
}

pg_stop() {
    local dir="$1"
    [ -f "$dir/data/postmaster.pid" ] || return 0
    run_as postgres "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >&2 || true
}

# ---------------------------------------------------------------- MariaDB

mariadb_ping() { mariadb-admin --no-defaults --socket="$1/sock" -uroot ping; }

mariadb_start() {
    local dir="$1" port="$2"
    own_dir mysql "$dir"
    local user_args=()
    if is_root; then user_args=(--user=mysql); fi
    local fresh=0
    if [ ! -d "$dir/data/mysql" ]; then
        mariadb-install-db --no-defaults "${user_args[@]}" --datadir="$dir/data" \
            --skip-test-db --auth-root-authentication-method=normal >"$dir/install.log" 2>&1 || {
            tail -n 30 "$dir/install.log" >&2
            die "mariadb-install-db failed (log: $dir/install.log)"
        }
        fresh=1
    fi
    # Its own temporary folder, not the machine's /tmp: internal temporary
    # tables spill there as Aria files, which a /tmp cleaner (or another
    # server with the same pid in another container) must not delete
    # under a running query ("Error on delete of '/tmp/#sql-temptable-…'").
    own_dir mysql "$dir/tmp"
    local pid
    pid="$(cat "$dir/pid" 2>/dev/null || true)"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        log "mariadb already running in $dir (pid $pid)"
    else
        # The full-text settings stay the server's defaults (shortest word 3, the
        # stop-word list on), as on a managed server: agcore-memory-mysql stores
        # each analyzer token as one 3-to-84-character [a-z0-9] word, so short
        # tokens, stop words and CJK bigrams are indexed whatever these are.
        setsid mariadbd --no-defaults "${user_args[@]}" --datadir="$dir/data" \
            --bind-address=127.0.0.1 --port="$port" --socket="$dir/sock" --pid-file="$dir/pid" \
            --log-error="$dir/log" --tmpdir="$dir/tmp" --skip-name-resolve --max-connections=500 \
            --character-set-server=utf8mb4 --collation-server=utf8mb4_bin \
            --innodb-flush-log-at-trx-commit=2 --innodb-buffer-pool-size=256M \
            </dev/null >/dev/null 2>&1 9>&- &
        wait_for "mariadb" 60 "$dir/log" mariadb_ping "$dir"
    fi
    if [ "$fresh" -eq 1 ]; then
        mariadb --no-defaults --socket="$dir/sock" -uroot -e "
            CREATE USER IF NOT EXISTS 'agcore'@'127.0.0.1' IDENTIFIED BY 'agcore';
            CREATE USER IF NOT EXISTS 'agcore'@'localhost' IDENTIFIED BY 'agcore';
            GRANT ALL PRIVILEGES ON *.* TO 'agcore'@'127.0.0.1' WITH GRANT OPTION;
            GRANT ALL PRIVILEGES ON *.* TO 'agcore'@'localhost' WITH GRANT OPTION;
            CREATE DATABASE IF NOT EXISTS agcore CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;" ||
            die "creating the agcore user in mariadb failed"
    fi
    echo "mysql://agcore:agcore@127.0.0.1:$port/agcore"
}

mariadb_stop() {
    local dir="$1" pid
    pid="$(cat "$dir/pid" 2>/dev/null || true)"
    [ -n "$pid" ] || return 0
    mariadb-admin --no-defaults --socket="$dir/sock" -uroot shutdown >/dev/null 2>&1 ||
        kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 120); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
    done
}

# ---------------------------------------------------------------- Redis

redis_start() {
    local dir="$1" port="$2" persist="$3"
    mkdir -p "$dir"
    local pid
    pid="$(cat "$dir/redis.pid" 2>/dev/null || true)"
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        log "redis already running in $dir (pid $pid)"
    else
        local persistence=(--save '' --appendonly no)
        # `always`: an acknowledged write is in the append-only file before its reply, as
        # the killed-server check expects (`everysec` holds writes back for up to 2 s while
        # an fsync lags on a loaded machine, and a SIGKILL then loses acknowledged saves).
        if [ "$persist" = yes ]; then persistence=(--save '' --appendonly yes --appendfsync always); fi
        redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" "${persistence[@]}" \
            --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/log" >&2 9>&- ||
            die "redis did not start (log: $dir/log)"
        wait_for "redis" 30 "$dir/log" redis-cli -h 127.0.0.1 -p "$port" ping
    fi
    echo "redis://127.0.0.1:$port/0"
}

redis_stop() {
    local dir="$1" pid
    pid="$(cat "$dir/redis.pid" 2>/dev/null || true)"
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 60); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
    done
    rm -f "$dir/redis.pid"
}

# Every server is started with fd 9 (the lock of take_lock) closed: a server
# that inherited it would hold the lock for its whole life, and the next
# `stop` would wait for it forever.

# ---------------------------------------------------------------- instances

instance_pid() {
    case "$1" in
    postgres) pg_pid "$2" ;;
    mariadb) cat "$2/pid" 2>/dev/null || true ;;
    redis) cat "$2/redis.pid" 2>/dev/null || true ;;
    esac
}

cmd_instance() {
    local action="${1:-}" kind="${2:-}" dir="${3:-}"
    [ -n "$action" ] && [ -n "$kind" ] && [ -n "$dir" ] ||
        die "usage: instance start KIND DIR PORT | instance stop|kill KIND DIR"
    case "$kind" in postgres | mariadb | redis) ;; *) die "unknown KIND '$kind' (postgres, mariadb, redis)" ;; esac
    case "$action" in
    start)
        local port="${4:-}"
        [ -n "$port" ] || die "instance start needs a PORT"
        case "$kind" in
        postgres) pg_start "$dir" "$port" ;;
        mariadb) mariadb_start "$dir" "$port" ;;
        redis) redis_start "$dir" "$port" yes ;;
        esac
        ;;
    stop)
        case "$kind" in
        postgres) pg_stop "$dir" ;;
        mariadb) mariadb_stop "$dir" ;;
        redis) redis_stop "$dir" ;;
        esac
        ;;
    kill)
        local pid
        pid="$(instance_pid "$kind" "$dir")"
        [ -n "$pid" ] || return 0
        pkill -KILL -P "$pid" 2>/dev/null || true
        kill -KILL "$pid" 2>/dev/null || true
        local i
        for i in $(seq 1 40); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.25
        done
        ;;
    *) die "unknown instance action '$action' (start, stop, kill)" ;;
    esac
}

# ---------------------------------------------------------------- shared servers

cmd_start() {
    take_lock "$STATE/db.lock"
    install_servers
    local pg my rd
    pg="$(pg_start "$STATE/postgres" "$PG_PORT")"
    my="$(mariadb_start "$STATE/mariadb" "$MARIADB_PORT")"
    rd="$(redis_start "$STATE/redis" "$REDIS_PORT" no)"
    cat >"$ENV_FILE.tmp" <<EOF
AGCORE_TEST_POSTGRES_URL=$pg
AGCORE_TEST_MYSQL_URL=$my
AGCORE_TEST_REDIS_URL=$rd
AGCORE_DATABASES_SCRIPT=$script_dir/databases.sh
EOF
    mv "$ENV_FILE.tmp" "$ENV_FILE"
    log "databases ready: $pg, ${my/agcore:agcore@/agcore:***@}, $rd"
    print_env_file "$ENV_FILE"
}

cmd_stop() {
    take_lock "$STATE/db.lock"
    pg_stop "$STATE/postgres"
    mariadb_stop "$STATE/mariadb"
    redis_stop "$STATE/redis"
    rm -f "$ENV_FILE"
    log "databases stopped"
}

cmd_status() {
    local rc=0 kind dir pid
    for kind in postgres mariadb redis; do
        dir="$STATE/$kind"
        pid="$(instance_pid "$kind" "$dir")"
        if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
            echo "$kind: running (pid $pid, data $dir)"
        else
            echo "$kind: stopped"
            rc=3
        fi
    done
    return "$rc"
}

main() {
    local cmd="${1:-}"
    [ "$#" -gt 0 ] && shift
    case "$cmd" in
    install)
        take_lock "$STATE/db.lock"
        install_servers
        ;;
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    env) print_env_file "$ENV_FILE" ;;
    instance) cmd_instance "$@" ;;
    -h | --help | help | "") usage_from "${BASH_SOURCE[0]}" 2 17 ;;
    *)
        usage_from "${BASH_SOURCE[0]}" 2 17
        die "unknown command '$cmd'"
        ;;
    esac
}

main "$@"
