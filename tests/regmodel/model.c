/* The register model and the fakes of the kernel the drivers link against;
 * see model.h. Register offsets and bits here are written from the
 * datasheets, not taken from the driver headers, so a wrong constant in a
 * driver shows up as a failed test. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "tests/regmodel/model.h"
#include "drivers/pci/pcidecode.h"
#include "kernel/mem.h"

struct model M;
struct pci_dev model_dev;
static uint64_t vt_ns;		/* the virtual clock */
static uint64_t reset_ns;	/* when the last CTRL.RST was written */
static int xdctl_lag[2][16];	/* RX/TX queue: reads left until ENABLE follows */
static uint32_t xdctl_shown[2][16];

/* Datasheet offsets (8254x 13, 82574 10.2, 82576 8, I210 8) */
enum {
	R_CTRL = 0x0, R_STATUS = 0x8, R_EECD = 0x10, R_CTRL_EXT = 0x18, R_MDIC = 0x20,
	R_ICR = 0xc0, R_ICS = 0xc8, R_IMS = 0xd0, R_IMC = 0xd8, R_MDICNFG = 0xe04,
	R_EXTCNF_CTRL = 0xf00, R_EEMNGCTL = 0x1010, R_EICS = 0x1520, R_EIMS = 0x1524,
	R_EIMC = 0x1528, R_EICR = 0x1580, R_RAL0 = 0x5400, R_RAH0 = 0x5404,
	R_SWSM = 0x5b50, R_SW_FW_SYNC = 0x5b5c, R_EEMNGCTL_I210 = 0x12030,
	R_TNCRS = 0x4034,
};

static int is_igb(void) { return M.flav >= M_82576 && M.flav <= M_I210; }
static int is_pcie(void) { return M.flav != M_82540EM; }

uint64_t now_ns(void) { return vt_ns; }
void (*model_delay_hook)(void);
void udelay(uint64_t us)
{
	vt_ns += us * 1000;
	if (model_delay_hook)
		model_delay_hook();
}
void model_advance_ns(uint64_t ns) { vt_ns += ns; }

#ifdef MODEL_PTP
#include "tests/regmodel/tsync.h"
#else
/* The PTP hooks of the rings and of igb (drivers/net/phc.c, igb/ptp.c)
 * are not modelled here (tests/regmodel/tsync.c is, for the PTP tests):
 * no clock (a stamp in the buffer is handed on raw), no frame
 * timestamped through the registers. */
void phc_rx_hwtstamp(struct nic *nic, struct pkt *p) { (void)nic; (void)p; }
void phc_rx_buf_tstamp(struct nic *nic, struct pkt *p, uint64_t raw)
{
	(void)nic;
	p->tstamp = raw;
	p->flags |= PKT_RX_TSTAMP;
}
int phc_tx_request(struct nic *nic, int q, uint32_t desc) { (void)nic; (void)q; (void)desc; return 0; }
void igb_ptp_init(struct e1000x_port *p) { (void)p; }
void e1000e_ptp_init(struct e1000x_port *p) { (void)p; }
void ixgbe_ptp_init(struct e1000x_port *p) { (void)p; }
void ixgbe_ptp_link(struct e1000x_port *p) { (void)p; }
#endif

int model_printf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(M.console + M.console_len, sizeof(M.console) - M.console_len, fmt, ap);
	va_end(ap);
	if (n > 0)
		M.console_len += (size_t)n < sizeof(M.console) - M.console_len ? (size_t)n : 0;
	if (getenv("MODEL_VERBOSE")) {
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
	}
	return n;
}

int model_console_has(const char *s)
{
	return strstr(M.console, s) != 0;
}

static void log_access(char op, uint32_t reg, uint32_t v, int io)
{
	if (M.nlog < (int)(sizeof(M.log) / sizeof(M.log[0])))
		M.log[M.nlog++] = (struct model_access){ op, reg, v, io };
	vt_ns += 100;
}

/* CTRL.RST: MAC registers to their power-on values; the NVM load starts. */
static void do_reset(void)
{
#ifdef MODEL_IXGBE
	if (M.flav == M_82599) {
		reset_ns = vt_ns;
		ixgbe_model_reset();
		return;
	}
#endif
	uint32_t invm[64];	/* the I210's iNVM is one-time programmable: kept */
	memcpy(invm, &M.reg[0x12120 / 4], sizeof(invm));
	memset(M.reg, 0, sizeof(M.reg));
	memcpy(&M.reg[0x12120 / 4], invm, sizeof(invm));
	M.icr = M.ims = M.eicr = M.eims = 0;
	M.eecd_reads = M.eemngctl_reads = 0;
	M.gio_disabled = 0;
	M.resets++;
	reset_ns = vt_ns;
	M.reg[R_STATUS / 4] = (M.s.link_down ? 0 : 1u << 1) | 1u << 0 | 2u << 6 | (uint32_t)M.s.fn << 2 |
			      (is_pcie() ? 1u << 19 : 0);
	M.reg[R_EECD / 4] = 1u << 8 | (M.flav == M_I210 && !M.s.flashless ? 1u << 19 : 0);
	M.reg[0x5820 / 4] = M.s.manc;	/* MANC */
	if (is_pcie())	/* TCTL: a reset-default bit the drivers must keep (MULR, bit 28) */
		M.reg[0x400 / 4] = 1u << 28;
	if (is_igb())
		M.reg[(0xc028) / 4] = 1u << 25;	/* RXDCTL0.ENABLE is 1 after reset (82576 8.10.10) */
	M.reg[R_RAL0 / 4] = M.nvm_ral;
	M.reg[R_RAH0 / 4] = M.nvm_rah;
	memset(xdctl_lag, 0, sizeof(xdctl_lag));
	memset(xdctl_shown, 0, sizeof(xdctl_shown));
	xdctl_shown[0][0] = is_igb() ? 1u << 25 : 0;
#ifdef MODEL_PTP
	tsync_reset();
#endif
}

/* The NVM has been read: auto-read done (or, on the 82540EM, 3 ms on). */
static int nvm_loaded(void)
{
	if (M.flav == M_82540EM)
		return vt_ns - reset_ns >= 3000000;
	if (M.s.qemu_nvm)
		return 1;
	return (M.reg[R_EECD / 4] >> 9) & 1;
}

static uint16_t phy_read(uint32_t r)
{
	if (r == 14 && M.pll_reads++ < M.s.phy_pll_bad_reads)
		return 0xff;
	if (r == 14)
		return 0;
	if (M.s.phy_hung && (r == 21 || r == 10))
		return r == 21 ? 0xffff : (uint16_t)(M.phy[r] | 0xff);
	return M.phy[r];
}

static void phy_write(uint32_t r, uint16_t v)
{
	if (r == 0 && (v & 1u << 15)) {
		M.phy_resets++;
		M.s.phy_hung = 0;
	}
	if (r == 0)
		v &= (uint16_t)~(1u << 15 | 1u << 9);	/* BMCR reset and AN restart self-clear */
	M.phy[r] = v;
}

static int phy_owned(void)
{
	if (M.flav == M_82574)
		return (M.reg[R_EXTCNF_CTRL / 4] >> 5) & 1;
	if (is_igb()) {
		uint32_t bit = M.s.fn < 2 ? 2u << M.s.fn : 0x20u << (M.s.fn - 2);
		return !!(M.reg[R_SW_FW_SYNC / 4] & bit);
	}
	return 1;
}

static uint32_t mdic_write(uint32_t v)
{
	uint32_t op = (v >> 26) & 3, r = (v >> 16) & 31, addr = (v >> 21) & 31;
	if (!phy_owned())
		M.mdic_unowned++;
	if (M.s.mdic_never_ready)
		return v & ~(1u << 28);
	if (addr != 1)
		return v | 1u << 30 | 1u << 28;	/* no PHY answers: ERROR */
	if (op == 1) {
		phy_write(r, (uint16_t)v);
		return v | 1u << 28;
	}
	return (v & ~0xffffu) | phy_read(r) | 1u << 28;
}

/* igb RXDCTL/TXDCTL: which one (0 RX, 1 TX) and queue, or -1. */
static int xdctl_of(uint32_t reg, int *q)
{
	if (!is_igb())
		return -1;
	for (int k = 0; k < 2; k++) {
		uint32_t base = k ? 0xe028 : 0xc028;
		if (reg >= base && reg < base + 16 * 0x40 && (reg - base) % 0x40 == 0) {
			*q = (int)((reg - base) / 0x40);
			return k;
		}
	}
	return -1;
}

static int is_rqdpc(uint32_t reg)
{
	return is_igb() && reg >= 0xc030 && reg < 0xc030 + 16 * 0x40 && (reg - 0xc030) % 0x40 == 0;
}

static uint32_t cfg_done_bit(void)
{
	return 1u << (18 + (M.flav == M_I210 ? 0 : M.s.fn));
}

static uint32_t read_reg(uint32_t reg)
{
	uint32_t *r = &M.reg[reg / 4], v = *r;
	int q, k;
#ifdef MODEL_IXGBE
	if (M.flav == M_82599)
		return ixgbe_model_read(reg);
#endif
#ifdef MODEL_PTP
	if (tsync_read(reg, &v))
		return v;
#endif
	switch (reg) {
	case R_STATUS:
		if (M.gio_disabled && M.s.gio_polls >= 0 && ++M.status_reads > M.s.gio_polls)
			*r &= ~(1u << 19);
		return *r;
	case R_EECD:
		if (M.flav != M_82540EM && !M.s.qemu_nvm && M.s.auto_rd_reads >= 0 &&
		    M.eecd_reads++ >= M.s.auto_rd_reads)
			*r |= 1u << 9;
		return *r;
	case R_ICR:
		v = M.icr;
		M.icr = 0;
		return v;
	case R_IMS:
		return M.ims;
	case R_EIMS:
		return M.eims;
	case R_EICR:
		v = M.eicr;
		M.eicr = 0;
		return v;
	case R_RAL0:
	case R_RAH0:
		return nvm_loaded() ? v : 0;
	case R_SWSM:
		*r |= 1u;	/* SMBI: the read that finds it clear sets it */
		return M.s.smbi_held || M.s.smbi_stale ? v | 1u : v;
	case R_SW_FW_SYNC:
		return v | M.s.fw_sync;
	case R_EEMNGCTL:
	case R_EEMNGCTL_I210:
		if (M.s.cfg_done_reads >= 0 && M.eemngctl_reads++ >= M.s.cfg_done_reads)
			*r |= cfg_done_bit();
		return *r;
	}
	if ((k = xdctl_of(reg, &q)) >= 0) {
		if (xdctl_lag[k][q] > 0 && --xdctl_lag[k][q] == 0)
			xdctl_shown[k][q] = v & (1u << 25);
		return (v & ~(1u << 25)) | xdctl_shown[k][q];
	}
	if (reg >= 0x4000 && reg < 0x4100)
		*r = 0;	/* statistics clear on read */
	if (is_rqdpc(reg) && M.flav != M_I210)
		*r = 0;
	return v;
}

static void write_reg(uint32_t reg, uint32_t v)
{
	uint32_t *r = &M.reg[reg / 4];
	int q, k;
#ifdef MODEL_IXGBE
	if (M.flav == M_82599) {
		ixgbe_model_write(reg, v);
		return;
	}
#endif
#ifdef MODEL_PTP
	if (tsync_write(reg, v))
		return;
#endif
	switch (reg) {
	case R_CTRL:
		if (v & 1u << 2)
			M.gio_disabled = 1, M.status_reads = 0;
		if (v & 1u << 26) {
			do_reset();
			if (M.s.rst_stuck)
				*r = 1u << 26;
			return;
		}
		*r = v & ~(1u << 31);	/* PHY_RST self-clears here */
		return;
	case R_STATUS:
		return;
	case R_ICR:
		M.icr &= ~v;
		return;
	case R_ICS:
		M.icr |= v;
		return;
	case R_IMS:
		M.ims |= v;
		return;
	case R_IMC:
		M.ims &= ~v;
		return;
	case R_EICS:
		M.eicr |= v;
		return;
	case R_EIMS:
		M.eims |= v;
		return;
	case R_EIMC:
		M.eims &= ~v;
		return;
	case R_MDIC:
		*r = mdic_write(v);
		return;
	case R_EXTCNF_CTRL:
		*r = M.s.fw_holds_mdio ? v & ~(1u << 5) : v;
		return;
	case R_SWSM:
		*r = M.s.fw_holds_swesmbi ? v & ~2u : v;
		if (!(v & 1u))
			M.s.smbi_stale = 0;
		return;
	case R_SW_FW_SYNC:
		*r = v & 0xffff;
		return;
	}
	if ((k = xdctl_of(reg, &q)) >= 0) {
		xdctl_lag[k][q] = M.s.queue_enable_polls < 0 ? -1 : M.s.queue_enable_polls;
		if (!xdctl_lag[k][q])
			xdctl_shown[k][q] = v & (1u << 25);
	}
	*r = v;
}

uint32_t model_rd32(volatile uint8_t *base, uint32_t reg)
{
	(void)base;
	if ((M.flav == M_82574 || M.flav == M_I210) && reg == R_TNCRS)
		M.absent_reads++;	/* not a statistics register of the 82574; invalid on the I210 */
	uint32_t v = read_reg(reg);
	log_access('R', reg, v, 0);
	return v;
}

void model_wr32(volatile uint8_t *base, uint32_t reg, uint32_t v)
{
	(void)base;
	log_access('W', reg, v, 0);
	write_reg(reg, v);
}

/* The 82540EM I/O BAR at port 0xc000: IOADDR (+0), IODATA (+4) (8254x 13.2). */
uint32_t model_inl(uint16_t port)
{
	if (M.s.io_stub)
		return 0;
	if (port == 0xc000)
		return M.ioaddr;
	return read_reg(M.ioaddr);
}

void model_outl(uint16_t port, uint32_t v)
{
	if (M.s.io_stub)
		return;
	if (port == 0xc000) {
		M.ioaddr = v;
		return;
	}
	log_access('W', M.ioaddr, v, 1);
	write_reg(M.ioaddr, v);
}

uint32_t model_peek(uint32_t reg) { return M.reg[reg / 4]; }
void model_poke(uint32_t reg, uint32_t v) { M.reg[reg / 4] = v; }

int model_find_write(int from, uint32_t reg, uint32_t mask, uint32_t want)
{
	for (int i = from < 0 ? 0 : from; i < M.nlog; i++)
		if (M.log[i].op == 'W' && M.log[i].reg == reg && (M.log[i].val & mask) == want)
			return i;
	return -1;
}

int model_find_read(int from, uint32_t reg)
{
	for (int i = from < 0 ? 0 : from; i < M.nlog; i++)
		if (M.log[i].op == 'R' && M.log[i].reg == reg)
			return i;
	return -1;
}

int64_t model_last_write(uint32_t reg)
{
	for (int i = M.nlog - 1; i >= 0; i--)
		if (M.log[i].op == 'W' && M.log[i].reg == reg)
			return M.log[i].val;
	return -1;
}

/* ---- PCI config space and the PCI layer ---- */

#define CAP_PM 0xc8
#define CAP_PCIE 0xe0

uint8_t pci_read8(const struct pci_dev *d, uint16_t off) { (void)d; return M.cfg[off]; }
uint16_t pci_read16(const struct pci_dev *d, uint16_t off)
{
	(void)d;
	return (uint16_t)(M.cfg[off] | M.cfg[off + 1] << 8);
}
uint32_t pci_read32(const struct pci_dev *d, uint16_t off)
{
	return pci_read16(d, off) | (uint32_t)pci_read16(d, (uint16_t)(off + 2)) << 16;
}
void pci_write8(const struct pci_dev *d, uint16_t off, uint8_t v) { (void)d; M.cfg[off] = v; }
void pci_write16(const struct pci_dev *d, uint16_t off, uint16_t v)
{
	(void)d;
	M.cfg[off] = (uint8_t)v;
	M.cfg[off + 1] = (uint8_t)(v >> 8);
}
void pci_write32(const struct pci_dev *d, uint16_t off, uint32_t v)
{
	pci_write16(d, off, (uint16_t)v);
	pci_write16(d, (uint16_t)(off + 2), (uint16_t)(v >> 16));
}

static uint32_t cfg_rd(void *ctx, uint16_t off) { return pci_read32(ctx, off); }
static void cfg_wr(void *ctx, uint16_t off, uint32_t v) { pci_write32(ctx, off, v); }

int pci_aspm_disable(struct pci_dev *d, uint16_t which)
{
	struct pci_cfg c = { cfg_rd, cfg_wr, d, 4096 };
	if (!d->cap_pcie)
		return -1;
	return pci_cfg_aspm_clear(&c, d->cap_pcie, which);
}

volatile void *pci_map_bar(struct pci_dev *d, int i)
{
	(void)d;
	M.cfg[0x04] |= 0x06;	/* COMMAND: memory space and bus mastering on, as the kernel's does */
	return i == 0 ? (volatile void *)M.reg : 0;
}

uint16_t pci_map_io(struct pci_dev *d)
{
	return d->bar[2].type == PCI_BAR_IO ? (uint16_t)d->bar[2].addr : 0;
}

int pci_irq_setup(struct pci_dev *d, int nvec, const irq_handler_t *handlers,
		  void *const *args, const char *const *names)
{
	(void)names;
	int got = M.s.int_mode == INT_MODE_MSIX && nvec <= M.s.nvec ? nvec : 1;
	d->int_mode = got == nvec || M.s.int_mode != INT_MODE_MSIX ? M.s.int_mode : INT_MODE_MSI;
	d->nvec = got;
	for (int k = 0; k < got; k++) {
		M.handlers[k] = handlers[k];
		M.args[k] = args[k];
	}
	return got;
}

void pci_irq_free(struct pci_dev *d)
{
	d->int_mode = INT_MODE_NONE;
	d->nvec = 0;
	M.irq_frees++;
}

int pci_irq_set_handler(struct pci_dev *d, int k, irq_handler_t handler, void *arg)
{
	if (k >= d->nvec)
		return -1;
	M.handlers[k] = handler;
	M.args[k] = arg;
	return 0;
}

/* ---- DMA memory: real host memory; below 4 GiB from MAP_32BIT ---- */

void *dma_alloc_below(size_t bytes, size_t align, uint64_t limit)
{
	(void)align;	/* mmap gives page alignment, enough for 128-byte rings */
	size_t n = (bytes + 4095) & ~(size_t)4095;
	M.dma_limits_seen |= limit;
	if (!limit)
		M.dma_calls_unlimited++;
	void *p = mmap(0, n ? n : 4096, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (limit && limit <= (1ull << 32) ? MAP_32BIT : 0), -1, 0);
	return p == MAP_FAILED ? 0 : p;
}

void *dma_alloc(size_t bytes, size_t align) { return dma_alloc_below(bytes, align, 0); }
void dma_free(void *p, size_t bytes) { munmap(p, bytes); }

/* ---- the NIC layer ---- */

struct nic_config nic_cfg = {
	.burst = 32,
	.rxd = { [0 ... NIC_MAX_PORTS - 1] = 128 }, .txd = { [0 ... NIC_MAX_PORTS - 1] = 128 }, .queues = { [0 ... NIC_MAX_PORTS - 1] = 1 }, .itr = { [0 ... NIC_MAX_PORTS - 1] = 3 },
	.rx_int_delay = { [0 ... NIC_MAX_PORTS - 1] = 0 }, .rx_abs_int_delay = { [0 ... NIC_MAX_PORTS - 1] = 8 },
	.tx_int_delay = { [0 ... NIC_MAX_PORTS - 1] = 8 }, .tx_abs_int_delay = { [0 ... NIC_MAX_PORTS - 1] = 32 },
	.copybreak = { [0 ... NIC_MAX_PORTS - 1] = 0 }, .prefetch = { [0 ... NIC_MAX_PORTS - 1] = 1 }, .poll = { [0 ... NIC_MAX_PORTS - 1] = POLL_BUSY }, .napi_weight = { [0 ... NIC_MAX_PORTS - 1] = 64 },
	.vlan_filter = { [0 ... NIC_MAX_PORTS - 1] = 1 },
};

/* As drivers/net/nic.c: the model has one port, port 0. */
void nic_config_init(struct nic *nic)
{
	nic->cfg = (struct nic_port_config){
		.rxd = nic_cfg.rxd[0], .txd = nic_cfg.txd[0], .queues = nic_cfg.queues[0], .itr = nic_cfg.itr[0],
		.rx_int_delay = nic_cfg.rx_int_delay[0], .rx_abs_int_delay = nic_cfg.rx_abs_int_delay[0],
		.tx_int_delay = nic_cfg.tx_int_delay[0], .tx_abs_int_delay = nic_cfg.tx_abs_int_delay[0],
		.copybreak = nic_cfg.copybreak[0], .prefetch = nic_cfg.prefetch[0], .poll = nic_cfg.poll[0],
		.napi_weight = nic_cfg.napi_weight[0], .vlan_strip = nic_cfg.vlan_strip[0],
		.vlan_filter = nic_cfg.vlan_filter[0],
	};
	nic->rxd = (int)nic->cfg.rxd;
	nic->txd = (int)nic->cfg.txd;
}
struct nic *model_nic;
void (*nic_stop_others)(int stop);	/* one core in the model */
static int qarg[NIC_MAX_QUEUES];

static struct nic *all_nics[256];	/* every port probed: reachable, so no leak reports */
static int n_nics;

int nic_register(struct nic *nic)
{
	model_nic = nic;
	if (n_nics < 256)
		all_nics[n_nics++] = nic;
	nic->port = 0;
	snprintf(nic->name, sizeof(nic->name), "port0");
	nic->mtu = 1500;
	return 0;
}

void nic_unregister(struct nic *nic)
{
	printf("%s: %s %s not set up: port removed, the other ports run\n", nic->name, nic->driver,
	       nic->model);
}

int nic_pools_create(struct nic *nic)
{
	uint32_t n = (uint32_t)(nic->nqueues * (nic->rxd + 2 * nic_cfg.burst) + nic->txd);
	nic->pool = pktpool_create_below(nic->name, n, PKT_SLOT, nic->dma_limit);
	nic->small_pool = pktpool_create(nic->name, (uint32_t)(nic->nqueues * nic->rxd), PKT_SMALL_SLOT);
	return nic->pool && nic->small_pool ? 0 : -1;
}

void *napi_queue_arg(struct nic *nic, int q)
{
	(void)nic;
	qarg[q] = q;
	return &qarg[q];
}

void napi_queue_irq(struct trapframe *tf, void *arg)
{
	(void)tf;
	M.queue_irqs[*(int *)arg]++;
}

void napi_itr_init(struct nic *nic)
{
	for (int q = 0; q < nic->nqueues; q++) {
		nic->itr[q].setting = (uint32_t)nic->cfg.itr;
		nic->itr[q].current = 20000;
		nic->ops->set_itr(nic, q, 20000);
	}
}

void napi_watchdog(struct nic *nic)
{
	(void)nic;
}

/* ---- set-up ---- */

void model_init(enum model_flavour f)
{
	memset(&M, 0, sizeof(M));
	model_delay_hook = 0;
	M.flav = f;
	M.s = (struct model_script){ .auto_rd_reads = 2, .gio_polls = 3, .cfg_done_reads = 2,
				     .queue_enable_polls = 2, .phy_bmcr = 0x1140, .int_mode = INT_MODE_MSIX, .dmaidone_reads = 2,
				     .nvec = 16, .subsys_vendor = 0x8086 };
	if (f == M_82599)
		M.s.nvec = 64;	/* the 82599 has 64 MSI-X vectors */
	vt_ns = 1000000000;
	M.nvm_ral = 0x0a211b00;	/* 00:1b:21:0a:0b:0c, address valid */
	M.nvm_rah = 0x80000c0b;
	do_reset();
	M.resets = 0;
	M.phy[1] = 0x796d;
#ifdef MODEL_IXGBE
	ixgbe_model_sfp(0x03, 0x10, 0, 0, "Intel Corp", 0x001b21, "FTLX8571D3BCV-IT");	/* 10GBASE-SR */
	ixgbe_model_power_on();
#endif
	model_nic = 0;
	nic_cfg.queues[0] = 1;
	nic_cfg.poll[0] = POLL_BUSY;
}

int model_probe(const struct pci_driver *drv, uint16_t device)
{
	struct pci_dev *d = &model_dev;
	memset(d, 0, sizeof(*d));
	M.phy[0] = M.s.phy_bmcr;
	*d = (struct pci_dev){ .vendor = 0x8086, .device = device, .subsys_vendor = M.s.subsys_vendor,
			       .fn = M.s.fn, .int_mode = INT_MODE_NONE };
	d->bar[0] = (struct pci_bar){ .addr = 0xfebc0000, .size = 0x20000, .type = PCI_BAR_MEM32 };
	if (M.flav == M_82540EM)
		d->bar[2] = (struct pci_bar){ .addr = 0xc000, .size = 64, .type = PCI_BAR_IO };
	if (is_pcie()) {
		d->cap_pcie = CAP_PCIE;
		d->cap_pm = CAP_PM;
		M.cfg[CAP_PCIE] = 0x10;
		M.cfg[CAP_PCIE + 0x10] = 0x43;	/* Link Control: ASPM L0s and L1 on, RCB */
	}
	for (const struct pci_id *id = drv->ids; id->vendor; id++)
		if (id->device == device)
			return drv->probe(d, id);
	return -2;
}

/* Every buffer given back to a pool is logged ('F'), so a test can tell
 * whether a reset came before buffers were released (-Wl,--wrap=pkt_free). */
void __real_pkt_free(struct pkt *p);
void __wrap_pkt_free(struct pkt *p)
{
	log_access('F', 0, 0, 0);
	__real_pkt_free(p);
}
