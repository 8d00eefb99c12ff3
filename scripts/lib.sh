# Helpers shared by scripts/services.sh and scripts/databases.sh (sourced, not run).

log() { printf '[services] %s\n' "$*" >&2; }
die() {
    printf '[services] ERROR: %s\n' "$*" >&2
    exit 1
}

# Prints `sudo` when not root (for commands that write system directories).
sudo_cmd() {
    if [ "$(id -u)" -ne 0 ]; then echo sudo; fi
}

# Serialises install/start/stop between concurrent callers: take_lock FILE.
take_lock() {
    mkdir -p "$(dirname "$1")"
    exec 9>"$1"
    if ! flock -w 1800 9; then
        die "another run holds $1 for over 30 minutes"
    fi
}

apt_updated=0
apt_install() {
    if ! command -v apt-get >/dev/null 2>&1; then
        die "missing $*: install them with your package manager (apt-get not found)"
    fi
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null 2>&1 || die "missing $*: not root and sudo not found"
        sudo=(sudo)
    fi
    if [ "$apt_updated" -eq 0 ]; then
        log "apt-get update"
        "${sudo[@]}" apt-get update -qq || die "apt-get update failed"
        apt_updated=1
    fi
    log "apt-get install -y $*"
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "$@" >&2 ||
        die "apt-get install $* failed"
}

# Prints the KEY=VALUE lines of an env file as `export` lines: print_env_file FILE.
print_env_file() {
    [ -f "$1" ] || die "$1 not found: run the script's start command"
    local line
    while IFS= read -r line || [ -n "$line" ]; do
        [ -n "$line" ] || continue
        printf 'export %s=%q\n' "${line%%=*}" "${line#*=}"
    done <"$1"
}

# Prints lines FIRST..LAST of a script's header comment: usage_from FILE FIRST LAST.
usage_from() {
    sed -n "$2,$3p" "$1" | sed 's/^# \{0,1\}//' >&2
}
