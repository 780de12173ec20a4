"""``python -m cudagen``: which library each module loads, how many of its entry points it has,
and which entry points were bound under an earlier release's or the unversioned name (a library
older than the headers the module was built from). Exits 1 when a library is missing."""

import sys
from importlib.metadata import PackageNotFoundError, version

from cudagen import _cudagen


def _modules():
    return [(n, m) for n, m in sorted(vars(_cudagen).items()) if hasattr(m, "_bind_all")]


def main():
    try:
        print(f"cudagen {version('cudagen')}")
    except PackageNotFoundError:  # imported from a source tree
        print("cudagen (not installed)")
    missing = 0
    for name, module in _modules():
        name = name.lstrip("_")
        library, path, bound, entries = module._bind_all()
        if path is None:
            missing += 1
            print(f"{name:10} {library}: not found ({entries} entries)")
        else:
            print(f"{name:10} {library}: {path}: {bound} of {entries} entries")
    by_symbol = {}
    for library, path, symbol, bound in _cudagen._rebound():
        by_symbol.setdefault((library, path, bound), []).append(symbol)
    for (library, path, bound), symbols in by_symbol.items():
        others = f" (+{len(symbols) - 1} names of other releases)" if len(symbols) > 1 else ""
        print(f"bound {library}: {symbols[0]} -> {bound}{others} ({path})")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
