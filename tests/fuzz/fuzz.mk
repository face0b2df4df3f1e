# libFuzzer harnesses for every parser of outside input (issue 16):
# clang from Debian, ASan + UBSan, no recovery. UBSan without its
# alignment check (the target is x86-64, where an unaligned access is
# defined): each typed access's check is a 64-bit compare, and compare
# tracing (trace-cmp) hooked every one of them, half of the lwIP harnesses'
# time. Included by the top-level
# Makefile, which sets BUILD.
#   make fuzz                  each harness for FUZZ_SECONDS (60) and a table
#   make fuzz-ci               each for 10 s (part of make test)
#   build/fuzz/fuzz_X CORPUS   one harness by hand (libFuzzer options)
# Seeds: tests/fuzz/seeds/X/ (tests/fuzz/mkseeds.py, from the captures in
# a directory of real captures, --captures, and the test frames); dictionaries tests/fuzz/X.dict.

FUZZ_SAVED_GOAL := $(.DEFAULT_GOAL)
FUZZ_CC := clang
FUZZ_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
	-fsanitize=fuzzer,address,undefined -fno-sanitize=alignment -fno-sanitize-recover=all \
	-Itests/fuzz/shim -I.
FUZZ_DIR := $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_HARNESSES := ipv4 icmp arp lpm router cmdline shell pcicap bootinfo acpi trafgen ptp lwip http dhcp ptpport netperf bpf lpm6 addr6 pcapfile ipmap iperf3
FUZZ_BINS := $(FUZZ_HARNESSES:%=$(FUZZ_DIR)/fuzz_%)

# The kernel code of the knobs and the router, built for the host: objects
# under $(FUZZ_DIR)/obj, whose data and bss sections.ld gathers for
# fuzz_state.h; the kernel headers, except tests/fuzz/shim/kernel/cpu.h.
# The ptp app is in it for fwd's P2P transparent clock (its peer delay).
FUZZ_KSRC := apps/fwd/tc.c drivers/net/phc.c drivers/net/hwtstamp.c net/ptp.c $(wildcard apps/ptp/*.c) net/ptp_mgmt.c \
	net/ptp_servo.c apps/fwd/l3.c apps/fwd/l3v6.c apps/fwd/neigh.c apps/fwd/nd.c apps/fwd/ra.c apps/fwd/icmp.c apps/fwd/icmp6.c apps/fwd/route.c apps/fwd/tx.c apps/fwd/vlan.c apps/fwd/fwd.c apps/fwd/counters.c net/addr.c net/ifaddr.c drivers/net/napi.c apps/app.c apps/sink/sink.c drivers/net/nic.c \
	net/lpm.c net/lpm6.c net/ipv4.c net/ipv6.c net/vlan.c net/pkt.c net/prom.c kernel/cmdline.c kernel/fmt.c kernel/config.c
FUZZ_KOBJ := $(FUZZ_KSRC:%.c=$(FUZZ_DIR)/obj/%.o) $(FUZZ_DIR)/obj/shim.o
FUZZ_KLD := -Wl,-T,tests/fuzz/sections.ld -lm

# Sources each harness links beside tests/fuzz/fuzz_X.c.
FUZZ_SRC_ipv4 := net/ipv4.c
FUZZ_SRC_icmp := net/ipv4.c
FUZZ_SRC_arp := net/ipv4.c
FUZZ_SRC_lpm := net/lpm.c
FUZZ_SRC_bpf := net/bpf.c kernel/fmt.c
FUZZ_SRC_lpm6 := net/lpm6.c
FUZZ_SRC_pcapfile := net/pcapfile.c
FUZZ_SRC_ipmap := net/ipmap.c net/addr.c net/ipv4.c net/vlan.c kernel/fmt.c
FUZZ_LDFLAGS_lpm6 := -fno-sanitize-coverage=trace-cmp
FUZZ_SRC_addr6 := net/addr.c kernel/fmt.c
# No compare tracing: its hooks in the table-filling loops took 60 % of the
# time; without them 2.5x the executions and more features in the same time.
FUZZ_LDFLAGS_lpm := -fno-sanitize-coverage=trace-cmp
FUZZ_SRC_router := $(FUZZ_KOBJ)
FUZZ_LDFLAGS_router := $(FUZZ_KLD)
FUZZ_SRC_cmdline := $(FUZZ_KOBJ)
FUZZ_LDFLAGS_cmdline := $(FUZZ_KLD)
FUZZ_SRC_shell := $(FUZZ_DIR)/obj/kernel/lineedit.o $(FUZZ_DIR)/obj/kernel/shell.o $(FUZZ_DIR)/obj/shim.o
FUZZ_LDFLAGS_shell := $(FUZZ_KLD)
FUZZ_SRC_pcicap := drivers/pci/pcidecode.c
FUZZ_SRC_bootinfo := kernel/bootparse.c kernel/memmap.c
FUZZ_SRC_trafgen := tools/trafgen/frame.c
FUZZ_SRC_acpi := kernel/acpitab.c
FUZZ_SRC_ptp := net/ptp.c net/ptp_mgmt.c net/ipv4.c net/ipv6.c
# rr's netserver: netperf's control messages.
FUZZ_SRC_netperf := apps/rr/netperf.c
# The ptp app with the port clocks (software clock: no phc_ops).
FUZZ_PTP_OBJ := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(wildcard apps/ptp/*.c) net/ptp.c net/ptp_mgmt.c net/ptp_servo.c \
	drivers/net/phc.c drivers/net/hwtstamp.c)
FUZZ_SRC_ptpport := $(FUZZ_KOBJ) $(FUZZ_PTP_OBJ)
FUZZ_LDFLAGS_ptpport := $(FUZZ_KLD) -lm
# lwIP (the kernel's file list, LWIP_FILES) with its port (net/lwip), the rr
# app and mgmt's HTTP server with its /capture (the tap, BPF, pcapng and the
# port clocks it stamps with); their data and bss are kernel state too
# (sections.ld).
FUZZ_LWIP_APPS := $(FUZZ_DIR)/obj/cJSON.o \
	$(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(wildcard net/lwip/*.c apps/rr/*.c) apps/mgmt/http.c apps/mgmt/pcapip.c \
	apps/mgmt/capture.c drivers/net/capture.c net/bpf.c net/pcapng.c drivers/net/phc.c drivers/net/hwtstamp.c net/ptp.c)
FUZZ_LWIP_OBJ := $(LWIP_FILES:%=$(FUZZ_DIR)/obj/lwip/%.o) $(FUZZ_LWIP_APPS)
FUZZ_SRC_lwip := $(FUZZ_KOBJ) $(FUZZ_LWIP_OBJ)
FUZZ_LDFLAGS_lwip := $(FUZZ_KLD) -Inet/lwip -I$(LWIP)/include
# fuzz_http and fuzz_iperf3 drive lwIP through tcpclient.c's clients, whose
# sequence numbers, windows and lengths are the harness's own arithmetic:
# lwIP's compares there are on values no input byte gives, so their lwIP
# (obj/nc/lwip) and tcpclient.o are built without compare tracing (edge
# coverage kept; obj/nc: their data and bss are kernel state, sections.ld);
# fuzz_lwip and fuzz_dhcp, whose frames are the input's bytes, keep it.
FUZZ_NOCMP := -fno-sanitize-coverage=trace-cmp
FUZZ_LWIP_NC := $(LWIP_FILES:%=$(FUZZ_DIR)/obj/nc/lwip/%.o) $(FUZZ_LWIP_APPS) $(FUZZ_DIR)/harness/tcpclient.o
# rr's iperf3 server on the same lwIP build, driven by tcpclient.c's
# clients (as fuzz_http's).
FUZZ_SRC_iperf3 := $(FUZZ_KOBJ) $(FUZZ_LWIP_NC)
FUZZ_LDFLAGS_iperf3 := $(FUZZ_LDFLAGS_lwip) -I$(CJSON)
# The management port (apps/mgmt: its receive path, HTTP, the DHCP client)
# on the same lwIP build.
FUZZ_MGMT_OBJ := $(FUZZ_LWIP_OBJ) $(FUZZ_DIR)/obj/apps/mgmt/mgmt.o $(FUZZ_DIR)/obj/apps/mgmt/dhcp.o
# fuzz_http serves the real pages (metrics.c and what registered them: the
# apps' families, run/'s, the stats report, show config), wrapped
# (fuzz_http.c).
FUZZ_PAGES_OBJ := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,apps/mgmt/metrics.c \
	$(wildcard apps/pktgen/*.c) run/metrics.c run/stats.c run/statscmds.c) $(FUZZ_PTP_OBJ)
FUZZ_SRC_http := $(FUZZ_KOBJ) $(FUZZ_LWIP_NC) $(FUZZ_DIR)/obj/apps/mgmt/mgmt.o $(FUZZ_DIR)/obj/apps/mgmt/dhcp.o \
	$(FUZZ_PAGES_OBJ)
FUZZ_LDFLAGS_http := $(FUZZ_LDFLAGS_lwip) -lm -Wl,--wrap=mgmt_page
FUZZ_SRC_dhcp := $(FUZZ_KOBJ) $(FUZZ_MGMT_OBJ)
FUZZ_LDFLAGS_dhcp := $(FUZZ_LDFLAGS_lwip)
.SECONDARY: $(FUZZ_KOBJ) $(FUZZ_MGMT_OBJ) $(FUZZ_PTP_OBJ) $(FUZZ_PAGES_OBJ) $(FUZZ_LWIP_NC)

.PHONY: fuzz fuzz-ci fuzz-build
fuzz-build: $(FUZZ_BINS) ## build the libFuzzer harnesses

fuzz: $(FUZZ_BINS) ## each harness for FUZZ_SECONDS (60), then a table
	$(PYTHON) tests/fuzz/run.py --seconds $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

# ipmap's at 3 s: its parsers and one frame's rewrite, which 3 s covers.
fuzz-ci: $(FUZZ_BINS) ## each harness for 10 s (ipmap 3 s), as many at once as there are CPUs (~2 min on 2)
	$(PYTHON) tests/fuzz/run.py --seconds 10 --cap ipmap=3 --jobs $(shell nproc) $(FUZZ_HARNESSES)

.SECONDEXPANSION:
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $$(FUZZ_SRC_$$*) $$(wildcard tests/fuzz/*.h tests/fuzz/shim/*/*.h) \
		tests/fuzz/sections.ld tests/fuzz/fuzz.mk | $(FUZZ_DIR)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $(filter %.c %.o,$^) $(FUZZ_LDFLAGS_$*)

# The kernel's globals are ASan-checked, but for the KNOB/SHELL_CMD/APP
# registries' entries (LINKSET_ENTRY, kernel/linkset.h).
# tests/fuzz/nocov.txt: functions left out of coverage (still sanitized).
FUZZ_KCFLAGS := $(FUZZ_CFLAGS) -Inet/lwip -I$(LWIP)/include -I$(CJSON) \
	-fsanitize-coverage-ignorelist=tests/fuzz/nocov.txt
$(FUZZ_DIR)/obj/%.o: %.c tests/fuzz/nocov.txt tests/fuzz/fuzz.mk | $(LWIP_STAMP) $(CJSON)/cJSON.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_KCFLAGS) -MMD -MP -c $< -o $@

# lwIP's own sources: its warnings are not ours (as in the kernel build).
$(FUZZ_DIR)/obj/lwip/%.o: $(LWIP_STAMP) net/lwip/lwipopts.h net/lwip/lwippools.h tests/fuzz/nocov.txt tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(filter-out -Werror,$(FUZZ_KCFLAGS)) -c $(LWIP)/$*.c -o $@

# The same without compare tracing (FUZZ_LWIP_NC).
$(FUZZ_DIR)/obj/nc/lwip/%.o: $(LWIP_STAMP) net/lwip/lwipopts.h net/lwip/lwippools.h tests/fuzz/nocov.txt tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(filter-out -Werror,$(FUZZ_KCFLAGS)) $(FUZZ_NOCMP) -c $(LWIP)/$*.c -o $@

# tcpclient.c's clients are the harness's, outside the kernel state (not
# under obj/).
$(FUZZ_DIR)/harness/tcpclient.o: tests/fuzz/tcpclient.c tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_KCFLAGS) $(FUZZ_NOCMP) -MMD -MP -c $< -o $@

# cJSON (rr's iperf3 server), as the kernel builds it.
$(FUZZ_DIR)/obj/cJSON.o: $(CJSON)/cJSON.c tests/fuzz/nocov.txt tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(filter-out -Werror,$(FUZZ_KCFLAGS)) -c $< -o $@

$(FUZZ_DIR)/obj/shim.o: tests/fuzz/shim.c tests/fuzz/fuzz.mk
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_KCFLAGS) -MMD -MP -c $< -o $@

-include $(wildcard $(FUZZ_DIR)/obj/*.d $(FUZZ_DIR)/obj/*/*.d $(FUZZ_DIR)/obj/*/*/*.d $(FUZZ_DIR)/harness/*.d)

$(FUZZ_DIR):
	mkdir -p $@

.DEFAULT_GOAL := $(FUZZ_SAVED_GOAL)
