#!/bin/sh
# layers.sh - src/ is built in layers (src/README): a folder includes
# only its own files and those of the folders below it.  Every quoted
# #include of every file under src/ is resolved as the compiler does
# (the file's own folder first, then src/ and include/) and held against
# the table below; the table itself must have no circle.  A checker run
# on a planted tree shows that it finds an include running up.
. "${top_srcdir:-.}/tests/lib.sh"

if ! command -v python3 >/dev/null 2>&1; then
	skip "the layers of src/" "python3 not installed"
	tap_done
	exit $?
fi

cat >"$T/layers.py" <<'PY'
import os, re, sys

# folder -> the folders it may include (its own is always allowed).
# "." is a file directly in src/ (build-info.sh's header: generated).
MAY = {
    "base":    set(),
    "ui":      set(),
    "hw":      {"base"},
    "http":    {"base"},
    "resctrl": {"base"},
    "plat":    {"hw", "base"},
    "sim":     {"plat", "hw", "base"},
    "pmu":     {"plat", "hw", "base"},
    "core":    {"pmu", "plat", "hw", "base"},
    "serve":   {"core", "pmu", "resctrl", "http", "plat", "hw", "base",
                "ui"},
    "daemon":  {"serve", "core", "pmu", "resctrl", "http", "sim", "plat",
                "hw", "base", "ui", "."},
    "lib":     {"include"},
    "tools":   {"include", "sim", "plat", "hw", "base", "."},
}
GENERATED = {"config.h", "build-info.h"}
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)

def cycles():
    seen, stack, bad = {}, [], []
    def go(n):
        seen[n] = 1
        stack.append(n)
        for m in sorted(MAY.get(n, ())):
            if seen.get(m) == 1:
                bad.append(stack[stack.index(m):] + [m])
            elif m not in seen:
                go(m)
        stack.pop()
        seen[n] = 2
    for n in sorted(MAY):
        if n not in seen:
            go(n)
    return bad

def check(root):
    src = os.path.join(root, "src")
    out = []
    for d, _, files in os.walk(src):
        for f in sorted(files):
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(d, f)
            rel = os.path.relpath(path, src)
            room = rel.split(os.sep)[0] if os.sep in rel else "."
            text = open(path, errors="replace").read()
            for m in INC.finditer(text):
                inc = m.group(1)
                if inc in GENERATED:
                    continue
                if os.path.exists(os.path.join(d, inc)):
                    to = os.path.relpath(os.path.join(d, inc), src)
                elif os.path.exists(os.path.join(src, inc)):
                    to = inc
                elif os.path.exists(os.path.join(root, "include", inc)):
                    to = "include/" + inc
                else:
                    out.append("%s: #include \"%s\" names no file" % (rel, inc))
                    continue
                to = os.path.normpath(to)
                troom = to.split(os.sep)[0] if os.sep in to else "."
                if troom == ".." or (troom != room and troom not in MAY.get(room, ())):
                    out.append("src/%s includes src/%s (%s may include %s)" % (
                        rel, to, room, ", ".join(sorted(MAY.get(room, ()))) or "nothing"))
    return out

if sys.argv[1] == "--cycles":
    for c in cycles():
        print(" -> ".join(c))
else:
    for line in check(sys.argv[1]):
        print(line)
PY

is "$(python3 "$T/layers.py" --cycles)" "" "the layer table has no circle"

# Every folder of src/ is in the table and has a README.
for d in $(cd "$top_srcdir/src" && find . -mindepth 1 -maxdepth 1 -type d | sort); do
	d=${d#./}
	grep -q "^    \"$d\":" "$T/layers.py"
	ok $? "src/$d/ has a place in the layers"
	[ -f "$top_srcdir/src/$d/README" ]
	ok $? "src/$d/ has a README"
done

python3 "$T/layers.py" "$top_srcdir" >"$T/up"
ok $? "the checker ran"
n=$(wc -l <"$T/up")
[ "$n" -eq 0 ]
ok $? "no include runs up a layer ($n found)"
sed 's/^/#   /' "$T/up" | head -20

# The checker finds what it must: an include up, one to a folder beside,
# one out of src/.
mkdir -p "$T/self/src/base" "$T/self/src/core" "$T/self/src/http" "$T/self/include"
printf '#include "core/sampler.h"\n' >"$T/self/src/base/up.c"
printf '#include "http/http.h"\n#include "sampler.h"\n' >"$T/self/src/core/sampler.h"
printf '#include "../../x.h"\n' >"$T/self/src/http/http.h"
: >"$T/self/x.h"
is "$(python3 "$T/layers.py" "$T/self" | sed 's/ (.*//' | sort | tr '\n' ';')" \
	"src/base/up.c includes src/core/sampler.h;src/core/sampler.h includes src/http/http.h;src/http/http.h includes src/../x.h;" \
	"the checker finds an include up, beside and out of src/"

tap_done
