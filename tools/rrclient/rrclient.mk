# The host request-response client (docs/apps/rr.md, "Host request-response
# client"): plain C11 for Linux, libc and libm; shares trafgen's latency
# histogram. Included by the top-level Makefile, which sets BUILD.
BUILD ?= build
RRCLIENT_SAVED_GOAL := $(.DEFAULT_GOAL)
RRCLIENT_SRC := $(wildcard tools/rrclient/*.c) tools/trafgen/stats.c

$(BUILD)/rrclient: $(RRCLIENT_SRC) $(wildcard tools/rrclient/*.h) tools/trafgen/stats.h
	@mkdir -p $(dir $@)
	gcc -std=gnu11 -O2 -g -Wall -Wextra -Werror -o $@ $(RRCLIENT_SRC) -lm

.DEFAULT_GOAL := $(RRCLIENT_SAVED_GOAL)
