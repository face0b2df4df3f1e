# linerate: one entry point. `make` builds every image; `make help` lists
# the targets; see README.md and docs/.
BUILD := build
LWIP := $(BUILD)/lwip/lwip-2.1.3/src
# cJSON 1.7.15 from Debian's source package with its patches
# (tools/fetch-cjson.sh): rr's iperf3 server reads and writes iperf3's JSON.
CJSON := $(BUILD)/cjson/cjson-1.7.15
SYSROOT := $(BUILD)/newlib/sysroot/x86_64-elf
GCCINC := $(shell gcc -print-file-name=include)
GIT_DESCRIBE := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
PYTHON := /usr/bin/python3

# -fbuiltin after -ffreestanding: memcpy/memcmp/memset of a few constant
# bytes (MAC addresses, headers) become a few moves, not calls into newlib.
KCFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -mno-red-zone -fno-pic -fno-pie \
	-mcmodel=kernel -ffreestanding -fbuiltin -fstack-protector-strong -mstack-protector-guard=global -fno-omit-frame-pointer \
	-fno-asynchronous-unwind-tables -nostdinc -isystem $(SYSROOT)/include -isystem $(GCCINC) \
	-I. -DGIT_DESCRIBE='"$(GIT_DESCRIBE)"' -Inet/lwip -I$(LWIP)/include -I$(CJSON)
KLDFLAGS := -nostdlib -static -z max-page-size=0x1000 -z noexecstack --no-warn-rwx-segments \
	--build-id=none -T boot/kernel.ld

# The files on lwIP's path (net/lwip's receive and netif, rr's receive
# hook, TCP callbacks and services) are built as lwIP is, below, and
# optimised with it.
LWIP_APP_SRC := net/lwip/input.c net/lwip/netif.c apps/rr/rr.c apps/rr/rr_tcp.c apps/rr/rrsrv.c
KSRC := $(filter-out $(LWIP_APP_SRC),$(wildcard kernel/*.c run/*.c drivers/*/*.c drivers/net/*/*.c net/*.c net/*/*.c \
	apps/*.c apps/*/*.c))
KASM := boot/entry.S boot/ap.S kernel/vectors.S
KOBJ := $(patsubst %,$(BUILD)/obj/%.o,$(KASM) $(KSRC)) $(BUILD)/obj/cJSON.c.o
# The screen console's font, written as C at build time from a Debian
# console font (console-setup-linux; tools/psf2c.py, kernel/font.h).
FONT_PSF := /usr/share/consolefonts/Lat15-VGA16.psf.gz
KOBJ += $(BUILD)/obj/$(BUILD)/gen/font8x16.c.o
NEWLIB := $(SYSROOT)/lib/libc.a

# lwIP 2.1.3 from Debian's source package (tools/fetch-lwip.sh), built with
# net/lwip/lwipopts.h: the core, IPv4 and Ethernet files of its
# src/Filelists.mk that NO_SYS=1 with the raw API needs.
LWIP_STAMP := $(LWIP)/core/tcp.c
LWIP_FILES := core/def core/inet_chksum core/init core/ip core/mem core/memp core/netif \
	core/pbuf core/stats core/tcp core/tcp_in core/tcp_out core/timeouts core/udp \
	core/ipv4/dhcp core/ipv4/etharp core/ipv4/icmp core/ipv4/ip4 core/ipv4/ip4_addr core/ipv4/ip4_frag \
	core/ipv6/ethip6 core/ipv6/icmp6 core/ipv6/inet6 core/ipv6/ip6 core/ipv6/ip6_addr core/ipv6/ip6_frag \
	core/ipv6/mld6 core/ipv6/nd6 netif/ethernet
LWIP_OBJ := $(patsubst %,$(BUILD)/lwip/obj/%.o,$(LWIP_FILES))
LWIP_APP_OBJ := $(patsubst %,$(BUILD)/lwip/app/%.o,$(LWIP_APP_SRC))
LWIP_LIB := $(BUILD)/lwip/lwip.o
# lwIP, net/lwip's netif and rr's files on its path: -O3, no frame pointers, link-time
# optimised as one object, GCC's inlining limits raised (LWIP_INLINE);
# -fno-strict-aliasing: lwIP's pools hand out one memory as several types.
# Why, with the instruction counts: docs/benchmarks.md, "The lwIP build's flags".
LWIP_INLINE := --param max-inline-insns-single=2000 --param max-inline-insns-auto=200 \
	--param large-function-growth=2000 --param inline-unit-growth=2000
LWIP_CFLAGS := $(filter-out -O2 -Werror -fno-omit-frame-pointer,$(KCFLAGS)) -O3 -fomit-frame-pointer $(LWIP_INLINE) \
	-fno-strict-aliasing -flto

.PHONY: all deps run shell test unit qemu-test host-test bench plot rfc2544 clean reliability soak insncount netboot \
	docs docs-check help
all: $(BUILD)/linerate.elf $(BUILD)/linerate-fault.elf $(BUILD)/linerate.iso $(BUILD)/BOOTX64.EFI $(BUILD)/trafgen $(BUILD)/rrclient ## every image and the host tools (~2 min)

deps: ## install the Debian packages (as root; QEMU from bookworm-backports)
	tools/deps.sh

$(NEWLIB): tools/build-newlib.sh
	tools/build-newlib.sh $(BUILD)/newlib

$(LWIP_STAMP): tools/fetch-lwip.sh tools/debsrc.sh
	tools/fetch-lwip.sh $(BUILD)/lwip
	touch $@

$(BUILD)/lwip/obj/%.o: $(LWIP_STAMP) $(NEWLIB) Makefile net/lwip/lwipopts.h net/lwip/arch/cc.h net/lwip/arch/chksum.h net/lwip/hooks.h \
		net/lwip/lwippools.h
	@mkdir -p $(dir $@)
	gcc $(LWIP_CFLAGS) -c $(LWIP)/$*.c -o $@

$(BUILD)/lwip/app/%.c.o: %.c $(NEWLIB) Makefile | $(LWIP_STAMP)
	@mkdir -p $(dir $@)
	gcc $(LWIP_CFLAGS) -Werror -MMD -MP -c $< -o $@

$(LWIP_LIB): $(LWIP_OBJ) $(LWIP_APP_OBJ)
	gcc $(LWIP_CFLAGS) -flto-partition=one -flinker-output=nolto-rel -r -nostdlib -o $@ $^

$(CJSON)/cJSON.c: tools/fetch-cjson.sh tools/debsrc.sh
	tools/fetch-cjson.sh $(BUILD)/cjson
	touch $@

$(BUILD)/obj/cJSON.c.o: $(CJSON)/cJSON.c $(NEWLIB)
	@mkdir -p $(dir $@)
	gcc $(KCFLAGS) -c $< -o $@

$(BUILD)/obj/%.c.o: %.c $(NEWLIB) | $(LWIP_STAMP) $(CJSON)/cJSON.c
	@mkdir -p $(dir $@)
	gcc $(KCFLAGS) -MMD -MP -c $< -o $@

# $(BUILD)/describe holds GIT_DESCRIBE and is rewritten only when it changes;
# the objects that print it (kernel/version.h's users) depend on it, so a new
# commit rebuilds them and the banner never names an older commit.
DESCRIBE := $(BUILD)/describe
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(DESCRIBE) 2>/dev/null)" = '$(GIT_DESCRIBE)' ] || echo '$(GIT_DESCRIBE)' > $(DESCRIBE); })
$(patsubst %,$(BUILD)/obj/%.o,$(shell grep -l '"kernel/version.h"' $(KSRC))): $(DESCRIBE)

$(BUILD)/gen/font8x16.c: tools/psf2c.py
	@mkdir -p $(dir $@)
	$(PYTHON) tools/psf2c.py $(FONT_PSF) $@

$(BUILD)/obj/%.S.o: %.S
	@mkdir -p $(dir $@)
	gcc -I. -D__ASSEMBLER__ -MMD -MP -c $< -o $@

$(BUILD)/linerate.elf: $(KOBJ) boot/kernel.ld $(NEWLIB) $(LWIP_LIB)
	ld $(KLDFLAGS) -o $@ $(KOBJ) $(LWIP_LIB) --start-group $(SYSROOT)/lib/libc.a $(SYSROOT)/lib/libm.a --end-group
	grub-file --is-x86-multiboot2 $@

# The same kernel plus the shell's `fault` command (tests/fault/fault.c),
# for the fault-under-traffic tests only (tests/qemu/test_faults.py).
FAULT_OBJ := $(BUILD)/obj/tests/fault/fault.c.o
$(BUILD)/linerate-fault.elf: $(KOBJ) $(FAULT_OBJ) boot/kernel.ld $(NEWLIB) $(LWIP_LIB)
	ld $(KLDFLAGS) -o $@ $(KOBJ) $(FAULT_OBJ) $(LWIP_LIB) --start-group $(SYSROOT)/lib/libc.a $(SYSROOT)/lib/libm.a --end-group

# GRUB ISO for BIOS and UEFI, from CD or USB stick. Modules trimmed as in
# docs/toolchain.md 3a; every part_* module is needed by GRUB-EFI; configfile
# gives grub.cfg its source command (serial.cfg); echo and sleep its speed prompts.
GRUB_MODS = normal configfile multiboot2 iso9660 serial terminal all_video test gfxterm font echo sleep \
	$(shell ls /usr/lib/grub/x86_64-efi/ 2>/dev/null | sed -n 's/^\(part_.*\)\.mod$$/\1/p')
$(BUILD)/linerate.iso: $(BUILD)/linerate.elf boot/grub.cfg boot/serial.cfg
	rm -rf $(BUILD)/iso && mkdir -p $(BUILD)/iso/boot/grub
	cp $(BUILD)/linerate.elf $(BUILD)/iso/boot/linerate.elf
	cp boot/grub.cfg boot/serial.cfg $(BUILD)/iso/boot/grub/
	grub-mkrescue -o $@ --compress=xz --fonts=unicode --locales= --themes= \
		--install-modules="$(GRUB_MODS)" $(BUILD)/iso 2> $(BUILD)/grub-mkrescue.log || \
		{ cat $(BUILD)/grub-mkrescue.log; exit 1; }

# Network boot tree for TFTP/HTTP (docs/boot.md, "Network boot"): GRUB for BIOS
# PXE (boot/grub/i386-pc/core.0) and UEFI (boot/grub/x86_64-efi/core.efi,
# also BOOTX64.EFI at the top for UEFI HTTP boot), boot/netboot/grub.cfg,
# the image, and linerate/default.cfg; per-box linerate/mac-<MAC>.cfg files
# are the lab's.
NETBOOT := $(BUILD)/netboot
netboot: $(BUILD)/linerate.elf boot/netboot/grub.cfg boot/serial.cfg boot/netboot/default.cfg ## the TFTP/HTTP boot tree in build/netboot/ (seconds)
	rm -rf $(NETBOOT) && mkdir -p $(NETBOOT)/linerate
	grub-mknetdir --net-directory=$(NETBOOT) --subdir=boot/grub -d /usr/lib/grub/i386-pc
	grub-mknetdir --net-directory=$(NETBOOT) --subdir=boot/grub -d /usr/lib/grub/x86_64-efi
	cp $(NETBOOT)/boot/grub/x86_64-efi/core.efi $(NETBOOT)/BOOTX64.EFI
	cp boot/netboot/grub.cfg boot/serial.cfg $(NETBOOT)/boot/grub/
	cp boot/netboot/default.cfg $(NETBOOT)/linerate/default.cfg
	cp $(BUILD)/linerate.elf $(NETBOOT)/linerate/linerate.elf

include boot/efi/efi.mk
include tests/unit/unit.mk
include tools/trafgen/trafgen.mk
include tools/rrclient/rrclient.mk
include tests/fuzz/fuzz.mk

# make run: the demos, APP=fwd (default, tools/demo.py) or APP=rr
# (tools/demo_rr.py), on two (rr: one) NIC= ports, APPEND= replacing the
# demo's knobs of the same names. make shell: two NIC=
# ports on build/run/nicN.sock with app=APP (an app's name, or one per
# port as the app= knob takes them) before APPEND, and unless APPEND sets
# them poll=napi (an idle guest leaves the host's core idle; busy polling
# keeps a core at 100 %, for nothing at a prompt) and stats=0 (no report
# scrolling over what is typed: `stats` prints one, `set stats 1` every
# second). Other values are refused with the accepted ones before
# anything is built.
NIC ?= e1000e
NICS := e1000 e1000e igb virtio
# QEMU's device for each NIC= (virtio: a virtio 1.x virtio-net-pci)
NIC_MODEL = $(if $(filter virtio,$(NIC)),virtio-net-pci,$(NIC))
APPS := $(shell sed -n 's/^APP.[a-z_]*, \.name = "\([a-z_]*\)".*/\1/p' apps/*.c apps/*/*.c)
comma := ,
ifneq ($(filter run shell,$(MAKECMDGOALS)),)
ifneq ($(filter-out $(NICS),$(NIC)),)
$(error NIC=$(NIC): accepted: $(NICS))
endif
endif
ifneq ($(filter run,$(MAKECMDGOALS)),)
ifneq ($(filter-out fwd rr,$(APP)),)
$(error make run APP=$(APP): make run's demos are APP=fwd (the default) and APP=rr; for $(APP): make shell APP=$(APP))
endif
endif
ifneq ($(filter shell,$(MAKECMDGOALS)),)
ifneq ($(filter-out $(APPS),$(subst $(comma), ,$(APP))),)
$(error make shell APP=$(APP): accepted: $(APPS), or one per port: APP=pktgen$(comma)sink)
endif
endif
SHELL_NIC = $(NIC_MODEL):netdev=stream$(if $(filter igb,$(NIC)),$(comma)bus=rp)
SHELL_KNOBS = $(strip $(if $(filter poll=%,$(APPEND)),,poll=napi) $(if $(filter stats=%,$(APPEND)),,stats=0) \
	$(if $(APP),app=$(APP)) $(APPEND))

run: deps all ## route IPv4 through two NIC= ports for 10 s (APP=rr: request-response; APPEND='knobs') (~1 min)
	$(PYTHON) tools/$(if $(filter rr,$(APP)),demo_rr.py,demo.py) --nic $(NIC_MODEL)$(if $(APPEND), --append '$(APPEND)')

shell: deps all ## boot two NIC= ports with the serial shell here; APP=, APPEND='knobs' (Ctrl-A X quits)
	$(PYTHON) tools/qemurun.py --interactive --nic $(SHELL_NIC) --nic $(SHELL_NIC) \
		--append '$(SHELL_KNOBS)'

test: deps all docs-check unit fuzz-ci qemu-test host-test ## docs-check, unit, fuzz-ci, qemu-test, host-test: what CI runs (~30 min)

qemu-test: all netboot ## pytest tests that boot the images in QEMU (~22 min)
	$(PYTHON) -m pytest -q --durations=25 tests/qemu

host-test: $(BUILD)/linerate.elf $(BUILD)/trafgen $(BUILD)/rrclient ## pytest tests of the host tools (~2 min)
	$(PYTHON) -m pytest -q tests/host

# Fuzzing (FUZZ_SECONDS per harness) and the malformed-frame battery, one table.
# An hour under fire (issue 31; tests/qemu/test_soak.py, whose 60 s run is in qemu-test).
SOAK_SECONDS ?= 3600
soak: all ## L2+L3 forwarding, rr x128, pktgen, /metrics each second, links flapped, knobs set, ports reset, the battery each minute (SOAK_SECONDS, default 3600; root)
	SOAK_SECONDS=$(SOAK_SECONDS) $(PYTHON) -m pytest -q -s tests/qemu/test_soak.py -k under_fire

linux-peers: all ## a Debian Linux guest's 8021q VLAN sub-interface routed by fwd to a namespace (tests/qemu/test_fwd_vlan_linux.py, ~45 s, root)
	LINUX_PEERS=1 $(PYTHON) -m pytest -q -s tests/qemu/test_fwd_vlan_linux.py

reliability: deps all fuzz-build ## fuzz every harness FUZZ_SECONDS, then the malformed-frame battery
	$(PYTHON) tools/reliability.py $(FUZZ_HARNESSES)

bench: deps all insncount ## every benchmark: tables and CSV in build/bench/ (~15 min, root)
	$(PYTHON) tools/bench_boot.py 5
	$(PYTHON) tools/bench_insn.py
	$(PYTHON) tools/bench_scrape.py
	$(PYTHON) tools/bench_rx.py
	$(PYTHON) tools/bench_fwd.py
	$(PYTHON) tools/bench_smp.py
	$(PYTHON) tools/bench_rr.py
	$(PYTHON) tools/bench_pktgen.py
	$(PYTHON) tools/bench_ptp.py
	$(PYTHON) tools/bench_replay.py
	$(PYTHON) tools/bench_capture.py
	$(PYTHON) tools/bench_console.py
	$(MAKE) bench-rings

# QEMU TCG plugins that count guest instructions (tools/insncount): the
# plugin header comes from Debian's source package of the installed QEMU.
insncount: $(BUILD)/insncount/insncount.so $(BUILD)/insncount/hotblocks.so ## QEMU plugins that count guest instructions
$(BUILD)/insncount/insncount.so $(BUILD)/insncount/hotblocks.so &: tools/insncount/build.sh tools/insncount/insncount.c
	tools/insncount/build.sh $(abspath $(BUILD)/insncount)

# The coalescing field report's graphs (docs/field-reports.md): CPU% and packets per
# interrupt against offered load, per InterruptThrottleRate (tools/statplot.py sweep;
# ~90 s at 5k-40k pps).
plot: deps $(BUILD)/linerate.elf $(BUILD)/trafgen ## the coalescing graphs into build/ (~90 s)
	$(PYTHON) tools/statplot.py sweep --outdir $(BUILD)

rfc2544: deps $(BUILD)/linerate.elf ## RFC 2544 tables and figures: a pktgen appliance against a fwd appliance and a Debian Linux router in QEMU, side by side (build/rfc2544/, ~25 min)
	$(PYTHON) tools/rfc2544.py --outdir $(BUILD)/rfc2544

# The knob and shell-command tables of docs/ from the image's KNOB() and
# SHELL_CMD() declarations (tools/gendocs.py, with gdb); docs-check fails on
# a stale page.
docs: $(BUILD)/linerate.elf ## regenerate docs/knobs.md and docs/console.md's tables (seconds)
	$(PYTHON) tools/gendocs.py

docs-check: $(BUILD)/linerate.elf ## fail if those tables differ from the image (seconds)
	$(PYTHON) tools/gendocs.py --check

help: ## this list
	@sed -n 's/^\([a-z-]*\):.*## /\1\t/p' $(MAKEFILE_LIST) | expand -t 13

clean: ## remove what the build made, except newlib and the lwIP sources
	rm -rf $(BUILD)/obj $(BUILD)/lwip/obj $(BUILD)/lwip/app $(BUILD)/lwip/*.a $(BUILD)/lwip/lwip.o $(BUILD)/iso $(BUILD)/efi $(BUILD)/unit $(BUILD)/*.elf $(BUILD)/*.iso $(BUILD)/*.EFI

-include $(KOBJ:.o=.d) $(FAULT_OBJ:.o=.d) $(LWIP_APP_OBJ:.o=.d)
