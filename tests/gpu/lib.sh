# Shell functions the GPU-machine scripts share; source it: `. tests/gpu/lib.sh`.

# pip_target PYTHON DIR PIP-ARGS...: installs what PIP-ARGS name (wheels, or names with
# --find-links) into the folder DIR, without dependencies, and puts DIR first on the exported
# PYTHONPATH. The machine's Python keeps its own site-packages (numpy, NVIDIA's cuda.bindings),
# which a venv over a venv would not see. Returns pip's status.
pip_target() {
  local python=$1 dir=$2
  shift 2
  "$python" -m pip install -q --no-deps --target "$dir" "$@" || return
  export PYTHONPATH="$dir${PYTHONPATH:+:$PYTHONPATH}"
}
