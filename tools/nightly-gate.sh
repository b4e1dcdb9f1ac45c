#!/bin/sh
# importscope as a CI gate on a nightly image: build importscope inside the image (unless IMPORTSCOPE
# names a binary already), scan the image's environment, run the bundled DeepGEMM probe and the
# user's reproducer, archive the reports, their Markdown and JUnit forms, and fail when the scan or
# any run has an error finding.
#
# Usage: nightly-gate.sh ARTIFACT_DIR [REPRODUCER [ARGS...]]
# Environment: IMPORTSCOPE (a built binary; default: build from this checkout), PYTHON (the image's
# interpreter; default python3), IMPORTSCOPE_TIMEOUT (seconds per run; default 1800),
# IMPORTSCOPE_FAIL_ON (default error).
set -u

artifacts=${1:?usage: nightly-gate.sh ARTIFACT_DIR [REPRODUCER [ARGS...]]}
shift
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$artifacts"
python=${PYTHON:-python3}
timeout=${IMPORTSCOPE_TIMEOUT:-1800}
fail_on=${IMPORTSCOPE_FAIL_ON:-error}

if [ -z "${IMPORTSCOPE:-}" ]; then
    make -C "$here" build PYTHON="$python" >"$artifacts/build.log" 2>&1 || {
        echo "nightly-gate: building importscope failed; see $artifacts/build.log" >&2
        exit 2
    }
    IMPORTSCOPE=$here/build/importscope
fi

status=0
gate() { # NAME, then importscope run's options and the target
    name=$1
    shift
    "$IMPORTSCOPE" run --quiet --python "$(command -v "$python")" --timeout "$timeout" --fail-on "$fail_on" \
        -o "$artifacts/$name.json" "$@" >"$artifacts/$name.log" 2>&1
    rc=$?
    render "$name"
    # importscope run's exit statuses (docs/ci-gate.md): 3 findings, 124 timeout, 125 importscope's
    # own failure, 126/127 the target cannot be run; any other non-zero one is the target's.
    case $rc in
        0) echo "nightly-gate: $name: no error finding" ;;
        3) echo "nightly-gate: $name: error findings, see $artifacts/$name.md"; status=1 ;;
        124) echo "nightly-gate: $name: timed out after $timeout s with no finding, see $artifacts/$name.log"; status=1 ;;
        125) echo "nightly-gate: $name: importscope could not do its job, see $artifacts/$name.log"; status=1 ;;
        126|127) echo "nightly-gate: $name: the target cannot be run (status $rc), see $artifacts/$name.log"; status=1 ;;
        *) echo "nightly-gate: $name: the target failed (status $rc) with no error finding, see $artifacts/$name.log"; status=1 ;;
    esac
}

render() { # NAME: the report's Markdown and JUnit forms beside it
    if [ -f "$artifacts/$1.json" ]; then
        "$IMPORTSCOPE" report "$artifacts/$1.json" --format markdown -o "$artifacts/$1.md"
        "$IMPORTSCOPE" report "$artifacts/$1.json" --format junit -o "$artifacts/$1.junit.xml"
    fi
}

# First the environment's files, with nothing run: importscope scan's exit statuses are 0 none,
# 1 findings, 125 importscope's own failure.
"$IMPORTSCOPE" scan --quiet --python "$(command -v "$python")" --fail-on "$fail_on" \
    -o "$artifacts/scan.json" >"$artifacts/scan.log" 2>&1
rc=$?
render scan
case $rc in
    0) echo "nightly-gate: scan: no error finding" ;;
    1) echo "nightly-gate: scan: error findings, see $artifacts/scan.md"; status=1 ;;
    *) echo "nightly-gate: scan: importscope could not do its job (status $rc), see $artifacts/scan.log"; status=1 ;;
esac

probe_dir=$(dirname "$IMPORTSCOPE")/probes
if [ -f "$probe_dir/vllm_deep_gemm_alias.py" ]; then
    # The bundled probe exits 2 where vLLM is not installed: only its findings count.
    gate vllm-deep-gemm-alias --ignore-target-status "$probe_dir/vllm_deep_gemm_alias.py"
fi
if [ $# -gt 0 ]; then
    gate reproducer "$@"
fi
exit $status
