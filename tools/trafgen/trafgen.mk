# The host traffic tool (docs/apps/fwd.md, "Host traffic tool"): plain C11 for the
# Linux host, libc and libm only. Included by the top-level Makefile, which
# sets BUILD; also runs alone:
#   make -f tools/trafgen/trafgen.mk BUILD=build build/trafgen

BUILD ?= build
# Keep the including Makefile's default goal.
TRAFGEN_SAVED_GOAL := $(.DEFAULT_GOAL)
TRAFGEN_SRC := $(wildcard tools/trafgen/*.c)
TRAFGEN_CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror

$(BUILD)/trafgen: $(TRAFGEN_SRC) $(wildcard tools/trafgen/*.h)
	@mkdir -p $(dir $@)
	gcc $(TRAFGEN_CFLAGS) -o $@ $(TRAFGEN_SRC) -lm

.DEFAULT_GOAL := $(TRAFGEN_SAVED_GOAL)
