# fuzz.mk - builds the libFuzzer targets with clang (tests/scenario/fuzz.sh
# runs them).  The daemon's sources are compiled again with
# -fsanitize=fuzzer-no-link,address,undefined into $(B)/obj; make keeps
# them up to date (-MMD).
#   make -f tests/fuzz/fuzz.mk SRC=top_srcdir BUILD=top_builddir B=outdir
CC = clang
SAN = -fsanitize=address,undefined -fno-sanitize-recover=all \
      -fno-omit-frame-pointer
CFLAGS = -std=gnu11 -g -O1 -fsanitize=fuzzer-no-link $(SAN)
CPPFLAGS = -DHAVE_CONFIG_H -I$(BUILD) -iquote $(SRC)/src -iquote $(SRC) \
	-DSYSCONFDIR='"/etc"' -DPKGDATADIR='"/usr/share/uncored"' \
	-DRUNSTATEDIR='"/run"' -MMD -MP
# the libraries configure.ac checks for (pkg-config names), so a module
# that brings a new one needs it added here too
PKGS = json-c libpci inih libmicrohttpd yaml-0.1 gnutls libxcrypt zlib \
	libcap-ng
LIBS = $(shell pkg-config --libs $(PKGS)) -lpthread -lm

# every module but the daemon's main files and its command line
# (daemon/cli.c: its version text comes from the generated build-info.h)
# (new modules come along)
LIB = $(filter-out daemon/uncored.c daemon/cli.c serve/api.c, \
	$(patsubst $(SRC)/src/%,%,$(wildcard $(foreach d,base http pmu \
	resctrl core serve daemon hw plat sim,$(SRC)/src/$(d)/*.c)))) \
	lib/lproto.c
OBJ = $(LIB:%.c=$(B)/obj/%.o)
TARGETS = $(B)/fuzz_conf $(B)/fuzz_workload $(B)/fuzz_claim $(B)/fuzz_http \
	$(B)/fuzz_perf_format $(B)/fuzz_response $(B)/fuzz_webcfg

all: $(TARGETS)

$(B)/obj/%.o: $(SRC)/src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(B)/fuzz_%: $(SRC)/tests/fuzz/fuzz_%.c $(OBJ)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer $< $(OBJ) -o $@ $(LIBS)

-include $(OBJ:.o=.d)
