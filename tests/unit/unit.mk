# Host unit tests of the portable kernel code: cmocka, ASan and UBSan.
# Included by the top-level Makefile, which sets BUILD; also runs alone:
#   make -f tests/unit/unit.mk BUILD=build unit
# Each $(BUILD)/unit/test_X links kernel/X.c; `unit` runs them all and
# fails if any fails.

BUILD ?= build
# Keep the including Makefile's default goal: the rules below must not
# become it, whatever the place of the include.
UNIT_SAVED_GOAL := $(.DEFAULT_GOAL)
UNIT_CC := gcc
UNIT_CFLAGS := -std=gnu11 -O1 -g -Wall -Wextra -Werror \
	-fsanitize=address,undefined -fno-sanitize-recover=all -I.
UNIT_DIR := $(BUILD)/unit
UNIT_TESTS := cmdline memmap palloc fmt lineedit stats config
UNIT_BINS := $(UNIT_TESTS:%=$(UNIT_DIR)/test_%)
# PCI config-space decoding lives in drivers/pci/, checked against images
# captured from QEMU (tests/unit/pci_images.h, tools/pci_capture.py).
UNIT_BINS += $(UNIT_DIR)/test_pcidecode
# The router's building blocks and the address parsers live in net/
UNIT_NET := lpm ipv4 addr vlan bpf pktsum pcapng lpm6 ipv6 pcapfile pkt netcon ipmap
UNIT_BINS += $(UNIT_NET:%=$(UNIT_DIR)/test_%)
# PTP: messages (against ptp4l captures in tests/unit/data), the servo, and
# the register-free timestamping logic of the drivers.
UNIT_BINS += $(UNIT_DIR)/test_ptp $(UNIT_DIR)/test_ptp_servo $(UNIT_DIR)/test_hwtstamp
# rr's netserver: netperf 2.7.0's control messages against netperf
# captures in tests/unit/data.
UNIT_BINS += $(UNIT_DIR)/test_netperf
$(UNIT_DIR)/test_netperf: tests/unit/test_netperf.c apps/rr/netperf.c apps/rr/netperf.h net/bytes.h \
		tests/unit/data/netperf-tcp_rr.pcap tests/unit/data/netperf-udp_rr.pcap \
		tests/unit/data/netperf-tcp_crr.pcap tests/unit/data/netperf-tcp_stream.pcap
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ tests/unit/test_netperf.c apps/rr/netperf.c -lcmocka
# net/lwip's inline checksum for lwIP, against net/ipv4.c's.
UNIT_BINS += $(UNIT_DIR)/test_rrchksum
# Header-only: the boot paths' command line cut (kernel/boot_info.h).
UNIT_BINS += $(UNIT_DIR)/test_bootinfo
# virtio-net's split and packed virtqueues against a device the test plays.
UNIT_BINS += $(UNIT_DIR)/test_virtq
$(UNIT_DIR)/test_virtq: tests/unit/test_virtq.c drivers/net/virtio/virtqueue.c drivers/net/virtio/virtio.h \
		drivers/net/virtio/regs.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ tests/unit/test_virtq.c drivers/net/virtio/virtqueue.c -lcmocka
# The mirror port (drivers/net/capture.c, included by the test) on
# stand-in ports with net/pkt.c's pools; port clocks stubbed.
UNIT_BINS += $(UNIT_DIR)/test_capture
$(UNIT_DIR)/test_capture: tests/unit/test_capture.c drivers/net/capture.c drivers/net/capture.h drivers/net/nic.h \
		net/pkt.c net/pkt.h net/bpf.c net/ipv4.c kernel/fmt.c
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) -Itests/fuzz/shim $(UNIT_CFLAGS) -o $@ tests/unit/test_capture.c net/pkt.c net/bpf.c net/ipv4.c \
		kernel/fmt.c -lcmocka
# pktgen's latency histogram.
UNIT_BINS += $(UNIT_DIR)/test_hist
# The management port's Prometheus text builder (and the histogram's edges).
UNIT_BINS += $(UNIT_DIR)/test_prom
# The boot paths' parsers with lying sizes (kernel/bootparse.c).
UNIT_BINS += $(UNIT_DIR)/test_bootparse
# ACPI tables with lying lengths (kernel/acpitab.c).
UNIT_BINS += $(UNIT_DIR)/test_acpitab
# The screen console's framebuffer on a host buffer (kernel/fb.c), with the
# font the kernel is built with.
UNIT_BINS += $(UNIT_DIR)/test_fb

# Beyond kernel/X.c and kernel/X.h: cmdline parses numbers with fmt's
# parse_u64; memmap uses the shared region types.
$(UNIT_DIR)/test_cmdline: kernel/fmt.c kernel/fmt.h
$(UNIT_DIR)/test_memmap: kernel/boot_info.h
$(UNIT_DIR)/test_addr: kernel/fmt.c kernel/fmt.h
# bpf parses numbers with fmt's parse_u64; its test runs Debian's tcpdump -dd.
$(UNIT_DIR)/test_bpf: kernel/fmt.c kernel/fmt.h
# pcapng's test reads what it wrote with Debian's tshark.
# pcapfile's reads pcapng.c's blocks, and ptp4l's capture as tshark does.
$(UNIT_DIR)/test_pcapfile: net/pcapng.c net/pcapng.h tests/unit/data/ptp4l-l2-e2e-twostep.pcap
# pktsum prints addresses with addr's ipv4_str and mac_str.
$(UNIT_DIR)/test_pktsum: net/addr.c net/addr.h kernel/fmt.c kernel/fmt.h
$(UNIT_DIR)/test_lpm6: net/addr.c net/addr.h kernel/fmt.c kernel/fmt.h
$(UNIT_DIR)/test_ipv6: net/ipv4.c net/ipv4.h
# netcon parses with addr's and fmt's parsers and sums with ipv4's.
$(UNIT_DIR)/test_netcon: net/addr.c net/addr.h net/ipv4.c net/ipv4.h kernel/fmt.c kernel/fmt.h
# ipmap: addr's parsers, ipv4's checksums, vlan's tags.
$(UNIT_DIR)/test_ipmap: net/addr.c net/addr.h kernel/fmt.c kernel/fmt.h net/ipv4.c net/ipv4.h net/ipv6.h \
	net/vlan.c net/vlan.h
# stats is run/stats.c (the report above drivers and apps); it reads struct
# nic and struct lcore (headers only).
$(UNIT_DIR)/test_stats: tests/unit/test_stats.c run/stats.c run/stats.h drivers/net/nic.h run/lcore.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ tests/unit/test_stats.c run/stats.c -lcmocka
# NAPI's dynamic ITR (drivers/net/napi.c; nic.h for the queue counters).
UNIT_BINS += $(UNIT_DIR)/test_napi
$(UNIT_DIR)/test_napi: tests/unit/test_napi.c drivers/net/napi.c drivers/net/napi.h drivers/net/napi_poll.h drivers/net/nic.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ tests/unit/test_napi.c drivers/net/napi.c -lcmocka
# The sink app's receive (apps/sink/sink.c, included by the test): VLAN
# counts of bursts checked four frames at a time.
UNIT_BINS += $(UNIT_DIR)/test_sink
$(UNIT_DIR)/test_sink: tests/unit/test_sink.c apps/sink/sink.c net/vlan.c net/vlan.h apps/app.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ tests/unit/test_sink.c net/vlan.c -lcmocka
# The consoles' output rings (kernel/conout.c, included by the test) against
# UARTs, a screen and netconsole the test plays; the fuzz harnesses' cpu.h.
UNIT_BINS += $(UNIT_DIR)/test_conout
$(UNIT_DIR)/test_conout: tests/unit/test_conout.c kernel/conout.c kernel/console.h kernel/uart.h tests/fuzz/shim/kernel/cpu.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) -Itests/fuzz/shim $(UNIT_CFLAGS) -o $@ tests/unit/test_conout.c -lcmocka
# ipN= and ipN.VID= (VLAN sub-interfaces) through cmdline_parse: the test
# includes net/ifaddr.c for its static knobs.
UNIT_BINS += $(UNIT_DIR)/test_ifaddr
$(UNIT_DIR)/test_ifaddr: tests/unit/test_ifaddr.c net/ifaddr.c net/ifaddr.h kernel/cmdline.c kernel/cmdline.h \
		net/addr.c net/ipv4.c kernel/fmt.c
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ tests/unit/test_ifaddr.c kernel/cmdline.c net/addr.c net/ipv4.c kernel/fmt.c -lcmocka
# fwd's transparent clock (apps/fwd/tc.c, included by the test), with the
# fuzz harnesses' one-core smp.h and cpu.h; port clocks stubbed; p2p's
# peer delay is the ptp app's (pdelay.c), its ptp_send stubbed.
UNIT_BINS += $(UNIT_DIR)/test_fwdtc
UNIT_BINS += $(UNIT_DIR)/test_ptpclock
$(UNIT_DIR)/test_fwdtc: tests/unit/test_fwdtc.c apps/fwd/tc.c apps/fwd/tc.h net/ptp.c net/ptp.h net/ipv4.c net/ipv4.h \
		net/ipv6.c net/prom.c net/prom.h apps/ptp/pdelay.c apps/ptp/ptp.h net/ptp_servo.c net/ptp_servo.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) -Itests/fuzz/shim $(UNIT_CFLAGS) -o $@ tests/unit/test_fwdtc.c net/ptp.c net/ipv4.c net/ipv6.c net/prom.c \
		apps/ptp/pdelay.c net/ptp_servo.c -lcmocka -lm
# config sets knobs through cmdline's knob_set.
$(UNIT_DIR)/test_config: kernel/cmdline.c kernel/cmdline.h kernel/fmt.c kernel/fmt.h

# The drivers against a register model (tests/regmodel/): each test
# includes its family's .c files; e1000x/*.c, the packet pools and the PCIe
# helpers link in as they are. printf is the model's (console captured).
REGMODEL := e1000 e1000e igb
REGMODEL_BINS := $(REGMODEL:%=$(UNIT_DIR)/test_regmodel_%)
REGMODEL_SRC := tests/regmodel/model.c drivers/net/nicsetup.c drivers/net/e1000x/e1000x.c drivers/net/e1000x/swfw.c drivers/net/e1000x/rx.c drivers/net/e1000x/tx.c net/addr.c kernel/fmt.c \
	net/pkt.c drivers/pci/pcidecode.c
REGMODEL_DEPS := $(REGMODEL_SRC) tests/regmodel/model.h drivers/net/e1000x/e1000x.h drivers/net/e1000x/regs.h \
	drivers/net/e1000x/desc.h drivers/net/e1000x/ring.h drivers/net/nic.h net/pkt.h drivers/pci/pcidecode.h
UNIT_BINS += $(REGMODEL_BINS)
$(UNIT_DIR)/test_regmodel_e1000: drivers/net/e1000/e1000.c drivers/net/e1000/regs.h
$(UNIT_DIR)/test_regmodel_e1000e: drivers/net/e1000e/e1000e.c drivers/net/e1000e/regs.h
$(UNIT_DIR)/test_regmodel_igb: drivers/net/igb/igb.c drivers/net/igb/igb_hw.c \
	drivers/net/igb/igb.h drivers/net/igb/regs.h
$(REGMODEL_BINS): $(UNIT_DIR)/test_regmodel_%: tests/regmodel/test_%.c $(REGMODEL_DEPS)
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -DE1000X_HOST_MODEL -Dprintf=model_printf -Wl,--wrap=pkt_free \
		-o $@ $< $(REGMODEL_SRC) -lcmocka

# The 82599 (ixgbe) against its part of the model (tests/regmodel/ixgbe_model.c, MODEL_IXGBE).
# sfp.c links in as it is; the test also ptp.c with the time
# sync model (MODEL_PTP), the instruction count without.
REGMODEL_PTP_SRC := tests/regmodel/tsync.c drivers/net/phc.c drivers/net/hwtstamp.c net/ptp.c net/ipv4.c net/ipv6.c
IXGBE_SRC := drivers/net/ixgbe/sfp.c drivers/net/ixgbe/phy.c
IXGBE_DEPS := tests/regmodel/ixgbe_model.c drivers/net/ixgbe/ixgbe.c drivers/net/ixgbe/ixgbe.h drivers/net/ixgbe/regs.h \
	$(IXGBE_SRC) $(REGMODEL_DEPS)
UNIT_BINS += $(UNIT_DIR)/test_regmodel_ixgbe
$(UNIT_DIR)/test_regmodel_ixgbe: tests/regmodel/test_ixgbe.c $(IXGBE_DEPS) drivers/net/ixgbe/ptp.c $(REGMODEL_PTP_SRC) \
		tests/regmodel/tsync.h drivers/net/phc.h drivers/net/hwtstamp.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -DE1000X_HOST_MODEL -DMODEL_IXGBE -DMODEL_PTP -Dprintf=model_printf -Wl,--wrap=pkt_free \
		-o $@ $< tests/regmodel/ixgbe_model.c $(IXGBE_SRC) drivers/net/ixgbe/ptp.c $(REGMODEL_PTP_SRC) $(REGMODEL_SRC) -lcmocka

# virtio-net against a lying virtio-pci device (tests/regmodel/virtio_model.c,
# VIRTIO_HOST_MODEL), on model.c's PCI, DMA and NIC fakes.
UNIT_BINS += $(UNIT_DIR)/test_regmodel_virtio
VIRTIO_SRC := drivers/net/virtio/pci.c drivers/net/virtio/legacy.c drivers/net/virtio/virtqueue.c \
	drivers/net/virtio/ctrl.c
$(UNIT_DIR)/test_regmodel_virtio: tests/regmodel/test_virtio.c tests/regmodel/virtio_model.c \
		tests/regmodel/virtio_model.h drivers/net/virtio/net.c drivers/net/virtio/virtio.h \
		drivers/net/virtio/regs.h $(VIRTIO_SRC) $(REGMODEL_DEPS)
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -DE1000X_HOST_MODEL -DVIRTIO_HOST_MODEL -Dprintf=model_printf -Wl,--wrap=pkt_free \
		-o $@ $< tests/regmodel/virtio_model.c $(VIRTIO_SRC) net/ipv4.c $(REGMODEL_SRC) -lcmocka

# Instructions per frame of the ixgbe and igb bursts on the model's rings
# (make bench-rings: -O2, no sanitizers, counted by callgrind).
RINGS_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -I. -DE1000X_HOST_MODEL -Wl,--wrap=pkt_free
$(UNIT_DIR)/bench_rings_ixgbe: tests/regmodel/bench_rings.c $(IXGBE_DEPS)
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(RINGS_CFLAGS) -DMODEL_IXGBE -o $@ $< tests/regmodel/ixgbe_model.c $(IXGBE_SRC) $(REGMODEL_SRC)
$(UNIT_DIR)/bench_rings_igb: tests/regmodel/bench_rings.c drivers/net/igb/igb.c drivers/net/igb/igb_hw.c $(REGMODEL_DEPS)
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(RINGS_CFLAGS) -o $@ $< $(REGMODEL_SRC)
$(UNIT_DIR)/bench_rings_virtio: tests/regmodel/bench_rings_virtio.c tests/regmodel/virtio_model.c \
		tests/regmodel/virtio_model.h drivers/net/virtio/net.c drivers/net/virtio/virtio.h \
		drivers/net/virtio/regs.h $(VIRTIO_SRC) $(REGMODEL_DEPS)
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(RINGS_CFLAGS) -DVIRTIO_HOST_MODEL -Dprintf=model_printf -o $@ $< tests/regmodel/virtio_model.c \
		$(VIRTIO_SRC) net/ipv4.c $(REGMODEL_SRC)
.PHONY: bench-rings
bench-rings: $(UNIT_DIR)/bench_rings_ixgbe $(UNIT_DIR)/bench_rings_igb $(UNIT_DIR)/bench_rings_virtio ## ixgbe/igb/virtio RX and TX instructions per frame on the model's rings (callgrind, ~15 s)
	/usr/bin/python3 tools/bench_rings.py $^

# The PTP paths of the drivers against the model with its time sync block
# (tests/regmodel/tsync.c, MODEL_PTP): the port clocks of drivers/net/phc.c
# over each part's SYSTIM, the RX and TX timestamps.
REGMODEL_PTP := igb_ptp e1000e_ptp
REGMODEL_PTP_BINS := $(REGMODEL_PTP:%=$(UNIT_DIR)/test_regmodel_%)
UNIT_BINS += $(REGMODEL_PTP_BINS)
$(UNIT_DIR)/test_regmodel_igb_ptp: drivers/net/igb/igb.c drivers/net/igb/igb_hw.c drivers/net/igb/ptp.c \
	drivers/net/igb/igb.h drivers/net/igb/regs.h
$(UNIT_DIR)/test_regmodel_e1000e_ptp: drivers/net/e1000e/e1000e.c drivers/net/e1000e/ptp.c \
	drivers/net/e1000e/regs.h
$(REGMODEL_PTP_BINS): $(UNIT_DIR)/test_regmodel_%: tests/regmodel/test_%.c $(REGMODEL_DEPS) $(REGMODEL_PTP_SRC) \
		tests/regmodel/tsync.h drivers/net/phc.h drivers/net/hwtstamp.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -DE1000X_HOST_MODEL -DMODEL_PTP -Dprintf=model_printf -Wl,--wrap=pkt_free \
		-o $@ $< $(REGMODEL_SRC) $(REGMODEL_PTP_SRC) -lcmocka

.PHONY: unit
unit: $(UNIT_BINS) ## cmocka tests, ASan+UBSan, the drivers against a register model (~2 min)
	@fail=0; for t in $(UNIT_BINS); do $$t || fail=1; done; exit $$fail

$(UNIT_DIR)/test_pcidecode: tests/unit/test_pcidecode.c tests/unit/pci_images.h \
		drivers/pci/pcidecode.c drivers/pci/pcidecode.h drivers/pci/pci.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(UNIT_DIR)/test_bootparse: tests/unit/test_bootparse.c kernel/bootparse.c kernel/boot.h kernel/boot_info.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(UNIT_DIR)/test_acpitab: tests/unit/test_acpitab.c kernel/acpitab.c kernel/acpi.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(UNIT_DIR)/test_fb: tests/unit/test_fb.c kernel/fb.c kernel/fb.h kernel/font.h $(BUILD)/gen/font8x16.c
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(UNIT_DIR)/test_bootinfo: tests/unit/test_bootinfo.c kernel/boot_info.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(UNIT_NET:%=$(UNIT_DIR)/test_%): $(UNIT_DIR)/test_%: tests/unit/test_%.c net/%.c net/%.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(UNIT_DIR)/test_ptp: tests/unit/test_ptp.c net/ptp.c net/ptp.h net/ptp_mgmt.c net/ptp_mgmt.h net/ipv4.c net/ipv4.h \
		net/ipv6.c net/ipv6.h \
		tests/unit/data/ptp4l-l2-e2e-twostep.pcap tests/unit/data/ptp4l-udp4-e2e-twostep.pcap \
		tests/unit/data/ptp4l-pmc-l2.pcap tests/unit/data/ptp4l-pmc-udp4.pcap \
		tests/unit/data/ptp4l-l2-p2p.pcap tests/unit/data/ptp4l-gptp.pcap tests/unit/data/ptp4l-udp6-e2e-twostep.pcap
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

# The boundary clock's state decision across ports (apps/ptp/clock.c and
# port.c, included by the test), clocks and transmission stubbed (in
# UNIT_BINS above the unit rule).
$(UNIT_DIR)/test_ptpclock: tests/unit/test_ptpclock.c apps/ptp/clock.c apps/ptp/port.c apps/ptp/ptp.h \
		net/ptp.c net/ptp.h net/ptp_servo.c net/ptp_servo.h net/ipv4.c net/ipv6.c
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) -Itests/fuzz/shim $(UNIT_CFLAGS) -o $@ tests/unit/test_ptpclock.c net/ptp.c net/ptp_servo.c net/ipv4.c \
		net/ipv6.c -lcmocka -lm

$(UNIT_DIR)/test_ptp_servo: tests/unit/test_ptp_servo.c net/ptp_servo.c net/ptp_servo.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka -lm

$(UNIT_DIR)/test_hwtstamp: tests/unit/test_hwtstamp.c drivers/net/hwtstamp.c drivers/net/hwtstamp.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(UNIT_DIR)/test_rrchksum: tests/unit/test_rrchksum.c net/lwip/arch/chksum.h net/ipv4.c net/ipv4.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(UNIT_DIR)/test_hist: tests/unit/test_hist.c apps/pktgen/hist.c apps/pktgen/hist.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(UNIT_DIR)/test_prom: tests/unit/test_prom.c net/prom.c net/prom.h apps/pktgen/hist.c apps/pktgen/hist.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

$(UNIT_DIR)/test_%: tests/unit/test_%.c kernel/%.c kernel/%.h
	@mkdir -p $(UNIT_DIR)
	$(UNIT_CC) $(UNIT_CFLAGS) -o $@ $(filter %.c,$^) -lcmocka

.DEFAULT_GOAL := $(UNIT_SAVED_GOAL)

