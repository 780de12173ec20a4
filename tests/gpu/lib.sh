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

# cudart_static CUDA: the path of NVIDIA's libcudart_static.a of that release in .cache/ (fetched
# with its headers if needed), which wheels link (`static-cudart`, on in pyproject.toml): export
# it as CUDAGEN_CUDART_STATIC before `maturin build`.
cudart_static() {
  cargo xtask fetch --cuda "$1" | sed -n 's/^static archive: //p'
}
