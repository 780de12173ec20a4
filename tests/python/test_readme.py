"""README.md's Python blocks, each run as written in a fresh interpreter.

Each block carries the marker line `<!-- example: eras=12,13 [gpu] -->` above it (the format
`tests/readme.rs` checks); a block runs when its eras include the installed package's major, and a
`gpu` block only where a driver and device exist (else it skips with one line).
"""

import pathlib
import re
import subprocess
import sys

from importlib.metadata import version

import pytest

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
MARKER = re.compile(r"<!-- example: (.*) -->")


def blocks():
    """(line, eras, gpu, code) of every ```python block, with its marker."""
    lines = README.read_text().splitlines()
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("```"):
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].rstrip() == "```")
        if lines[i][3:].strip() == "python":
            before = [l for l in lines[:i] if l.strip()]
            m = MARKER.fullmatch(before[-1].strip()) if before else None
            assert m, f"README.md:{i + 1}: a python block without `<!-- example: ... -->`"
            words = m.group(1).split()
            eras = [int(e) for w in words if w.startswith("eras=") for e in w[5:].split(",")]
            out.append((i + 1, eras, "gpu" in words, "\n".join(lines[i + 1 : end])))
        i = end + 1
    return out


BLOCKS = blocks()
MAJOR = int(version("cudagen").split(".")[0])


def test_blocks_found():
    assert len(BLOCKS) >= 2 and all(eras for _, eras, _, _ in BLOCKS), BLOCKS


@pytest.mark.parametrize("line,eras,needs_gpu,code", BLOCKS, ids=[f"line{b[0]}" for b in BLOCKS])
def test_readme_block(request, line, eras, needs_gpu, code):
    if MAJOR not in eras:
        pytest.skip(f"README.md line {line} claims eras {eras}, this package is {MAJOR}")
    if needs_gpu:
        request.getfixturevalue("gpu")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, f"README.md line {line}:\n{run.stdout}{run.stderr}"
