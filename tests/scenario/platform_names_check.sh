#!/bin/sh
# platform_names_check.sh - platform knowledge lives in src/plat/ (the
# platform tables, catalogs and the simulator's platform data), nowhere
# else: outside it, no C code (comments excepted) names a platform (skl,
# hsx, snbep, ...), a unit (cbo, imc, qpi, pcu, ubox, ...) or an event
# (CAS_COUNT, UNC_*), case-insensitively, as a word or part of an
# identifier (plat_hsx, SKL_MCHBAR, imc_channels).  Adding a platform is
# then a change in src/plat/ only (issue 10, "Done means").
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip "no platform names outside src/plat" "python3 not installed"
	tap_done
	exit $?
fi

# check.py ROOT prints "FILE<TAB>LINE<TAB>NAME<TAB>CODE" for every hit
# in ROOT/src.
cat >"$T/check.py" <<'PY'
import os, re, sys

root = sys.argv[1]
NAMES = (r"skl|hsx|snbep|skx|bdx|ivt|jkt|skylake|haswell|broadwell|"
         r"sandy ?bridge|ivy ?bridge|cbo|cbox|sbox|ubox|imc|mchbar|qpi|"
         r"r2pcie|r3qpi|irp|pcu|ha|arb|cas_count|unc_[a-z]\w*")
WORD = re.compile(r"(?<![A-Za-z0-9])(" + NAMES + r")(?![A-Za-z0-9])", re.I)

def strip_comments(text):
    """Blanks C comments (keeping newlines), leaves strings alone."""
    out, i, n, quote = [], 0, len(text), None
    while i < n:
        c = text[i]
        if quote is None:
            if text.startswith("/*", i):
                j = text.find("*/", i + 2)
                j = n if j < 0 else j + 2
                out.append(re.sub(r"[^\n]", " ", text[i:j]))
                i = j
                continue
            if text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
                out.append(" " * (j - i))
                i = j
                continue
            if c in "\"'":
                quote = c
        elif c == "\\":
            out.append(text[i:i + 2])
            i += 2
            continue
        elif c == quote:
            quote = None
        out.append(c)
        i += 1
    return "".join(out)

for d, dirs, files in os.walk(os.path.join(root, "src")):
    dirs.sort()
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        rel = os.path.relpath(os.path.join(d, f), root)
        if rel.startswith("src/plat/"):
            continue
        with open(os.path.join(d, f), errors="replace") as fh:
            code = strip_comments(fh.read())
        for ln, line in enumerate(code.split("\n"), 1):
            for m in WORD.finditer(line):
                print("%s\t%d\t%s\t%s" % (rel, ln, m.group(1), line.strip()[:100]))
PY
python3 "$T/check.py" "$top_srcdir" >"$T/hits"
ok $? "the checker ran"

# The checker itself: a name in code is found, the same in a comment not.
mkdir -p "$T/self/src/hw"
printf '/* hsx in a comment */\nint x; // cbo too\nstatic const char *p = "hsx";\n' \
	>"$T/self/src/hw/x.c"
printf 'int plat_skl_y;\n' >"$T/self/src/plat_ok.c"
mkdir -p "$T/self/src/plat" && printf 'int hsx;\n' >"$T/self/src/plat/z.c"
python3 "$T/check.py" "$T/self" | sort >"$T/selfhits"
is "$(cut -f1-3 "$T/selfhits" | tr '\t' ' ' | tr '\n' ';')" \
	"src/hw/x.c 3 hsx;src/plat_ok.c 1 skl;" \
	"code and strings are hits, comments and src/plat/ are not"

for f in $(cut -f1 "$T/hits" | sort -u); do
	n=$(grep -c "^$f	" "$T/hits")
	ok 1 "$f names no platform ($n hits)"
	grep "^$f	" "$T/hits" | head -20 | sed 's/^/#   /'
done
[ -s "$T/hits" ] || ok 0 "no platform names outside src/plat/"

# The simulator is reached through the hw ops (plat_of_hw(),
# hw_cpu_map_of(), hw_played_*()) and the simulated kernel's interface:
# only src/sim/ (the simulator's room), the simulator's tool, the module
# that chooses the backend (src/daemon/backend.c) and tests include its headers.
inc=$(cd "$top_srcdir" && grep -l -E '#include "sim/(hw_sim|sim_workload|sim_internal|sim_kernel|sim_pmu)\.h"' \
	$(find src -name '*.[ch]' | sort) |
	grep -v '^src/sim/' | grep -v '^src/tools/uncore-sim.c$' |
	grep -v '^src/daemon/backend.c$' | tr '\n' ' ')
if [ -z "$inc" ]; then
	ok 0 "the simulator's headers are included only in src/sim/, its tool, backend.c and tests"
else
	ok 1 "the simulator's headers are included only in src/sim/, its tool, backend.c and tests"
	echo "#   also in: $inc"
fi

# The layers (issue 21 item 9): the backends (src/hw/: msr, pci, mmio,
# perf) are below the platform tables and include none of them nor the
# simulator; the platform tables (src/plat/) include no simulator code.
below=$(cd "$top_srcdir" && grep -l -E '#include "(plat|sim)/' \
	$(find src/hw -name '*.[ch]' | sort) | tr '\n' ' ')
is "$below" "" "src/hw/ includes nothing of src/plat/ or src/sim/"
plat=$(cd "$top_srcdir" && grep -l -E '#include "sim/' \
	$(find src/plat -name '*.[ch]' | sort) | tr '\n' ' ')
is "$plat" "" "src/plat/ includes nothing of src/sim/"

# The simulator is below the daemon: nothing in src/hw/ or src/sim/
# reaches up to the scheduler (what it shares with it, the modifier
# grammar, is src/plat/).
up=$(cd "$top_srcdir" && grep -l -E '#include "(pmu|core|serve|daemon)/|\<sched_[a-z]+\(' \
	$(find src/hw src/sim -name '*.[ch]' | sort) | tr '\n' ' ')
is "$up" "" "src/hw/ and src/sim/ neither include nor call the daemon's modules"

tap_done
