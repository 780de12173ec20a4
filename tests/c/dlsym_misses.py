"""Reads LD_DEBUG=symbols,bindings output files: prints the cu* names some library looked up and
nothing bound (a dlsym that returned NULL), with the file each lookup was made from."""
import collections, re, sys

looked, bound = collections.defaultdict(set), set()
for path in sys.argv[1:]:
    for line in open(path, errors="replace"):
        m = re.search(r"symbol=(cu[A-Za-z0-9_]+);\s+lookup in file=(\S+)", line)
        if m:
            looked[m.group(1)].add(m.group(2))
            continue
        m = re.search(r"binding file .* to .*: normal symbol `(cu[A-Za-z0-9_]+)'", line)
        if m:
            bound.add(m.group(1))
miss = sorted(n for n in looked if n not in bound)
print(f"dlsym misses: {len(miss)} of {len(looked)} cu* names looked up")
for n in miss:
    print(" ", n, " ".join(sorted(looked[n]))[:200])
