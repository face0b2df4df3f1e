/*
 * Console output: every console's bytes go through a ring of its own,
 * filled by console_out (waiting for the UART) and console_queue (not) and
 * emptied as its UART takes them (kernel/uart.c), so a slow or vanished
 * line costs a core that forwards nothing but a copy. The screen
 * (kernel/fb.c) is drawn SCREEN_US a poll, or all at once with wait.
 */
#include <stdio.h>
#include <string.h>
#include "kernel/console.h"
#include "kernel/cpu.h"
#include "kernel/fb.h"
#include "kernel/kbd.h"
#include "kernel/shell.h"
#include "kernel/time.h"
#include "kernel/uart.h"
#include "run/netconsole.h"

/* What each console has to send. One lock for all (several cores print),
 * taken with interrupts off. */
#define RING 4096	/* bytes; a power of two */
struct con_tx {
	char ring[RING];
	uint32_t head, tail;	/* free-running: head - tail bytes wait */
	uint64_t sent, dropped;	/* bytes */
	uint64_t progress;	/* TSC when the UART last took a byte, or bytes came to an empty ring */
	int stalled;		/* took nothing for STALL_MS: drop until it takes again */
};
#define SCREEN_CHUNK 16	/* bytes drawn at a time from a loop that forwards */
#define SCREEN_US 200		/* and for how long a poll, microseconds (one chunk at least) */
#define STALL_MS 500	/* longer than a 16-byte FIFO takes at 1200 baud (133 ms) */
static struct con_tx tx[CONSOLE_MAX];
static volatile int tx_lock;

static uint64_t lock(void)
{
	uint64_t flags = irq_save();
	while (__atomic_exchange_n(&tx_lock, 1, __ATOMIC_ACQUIRE))
		cpu_relax();
	return flags;
}

static void unlock(uint64_t flags)
{
	__atomic_store_n(&tx_lock, 0, __ATOMIC_RELEASE);
	irq_restore(flags);
}

/* Send console i's waiting bytes while its UART takes them; with wait,
 * wait for it. A UART that takes nothing for uart_tx_wait's bound (wait)
 * or STALL_MS (not) is stalled: what waits is dropped (counted), and so is
 * what a waiting writer sends, without waiting, until it takes again. */
/* The screen: draw what waits; without wait SCREEN_CHUNK bytes at a time
 * until SCREEN_US have passed (a scroll redraws the screen: milliseconds). */
static void draw(struct con_tx *t, int wait)
{
	uint64_t t0 = rdtsc();

	while (t->head != t->tail && (wait || rdtsc() - t0 < tsc.hz / 1000000 * SCREEN_US)) {
		uint32_t at = t->tail % RING, left = t->head - t->tail;
		uint32_t n = RING - at < left ? RING - at : left;
		if (!wait && n > SCREEN_CHUNK)
			n = SCREEN_CHUNK;
		fb_write(t->ring + at, n);
		t->tail += n;
		t->sent += n;
	}
}

static void drain(int i, int wait)
{
	struct con_tx *t = &tx[i];
	struct uart *u = console_uart(i);
	uint64_t now = rdtsc();

	if (console_is_screen(i)) {
		draw(t, wait);
		return;
	}
	while (t->head != t->tail) {
		if (!uart_tx_ready(u)) {
			int stuck = wait ? t->stalled || uart_tx_wait(u) != 0 : now - t->progress > tsc.hz / 1000 * STALL_MS;
			if (stuck) {
				t->stalled = 1;
				t->dropped += t->head - t->tail;
				t->tail = t->head;
			}
			if (stuck || !wait)
				return;
		}
		t->stalled = 0;
		t->progress = now;
		uint32_t at = t->tail % RING, left = t->head - t->tail;
		size_t k = uart_write(u, t->ring + at, RING - at < left ? RING - at : left);
		t->tail += (uint32_t)k;
		t->sent += k;
	}
}

/* s[0..n) into console i's ring, copied in runs up to its wrap; when it is
 * full, with wait drained first (which empties it), else dropped (counted). */
static void put(int i, const char *s, size_t n, int wait)
{
	struct con_tx *t = &tx[i];

	while (n) {
		if (t->head - t->tail == RING && wait)
			drain(i, 1);
		if (t->head == t->tail)
			t->progress = rdtsc();
		uint32_t room = RING - (t->head - t->tail), at = t->head % RING;
		if (!room) {
			t->dropped += n;
			return;
		}
		size_t k = n < room ? n : room;
		if (k > RING - at)
			k = RING - at;
		memcpy(t->ring + at, s, k);
		t->head += (uint32_t)k;
		s += k;
		n -= k;
	}
}

/* s[0..n) to console which or all, "\n" as "\r\n" unless raw; with wait,
 * until the UARTs took it. */
static void send(int which, const char *s, size_t n, int raw, int wait)
{
	uint64_t flags = lock();

	if (which == CONSOLE_ALL && !raw)
		netcon_put(s, n);
	for (int i = which == CONSOLE_ALL ? 0 : which; i < (which == CONSOLE_ALL ? console_count() : which + 1); i++) {
		for (const char *p = s, *end = s + n; p < end;) {
			const char *nl = raw ? NULL : memchr(p, '\n', (size_t)(end - p));
			put(i, p, nl ? (size_t)(nl - p) : (size_t)(end - p), wait);
			if (!nl)
				break;
			put(i, "\r\n", 2, wait);
			p = nl + 1;
		}
		if (wait)
			drain(i, 1);
	}
	unlock(flags);
}

void console_out(int which, const char *s, size_t n)
{
	send(which, s, n, 0, 1);
}

void console_out_raw(int which, const char *s, size_t n)
{
	send(which, s, n, 1, 1);
}

void console_queue(const char *s, size_t n)
{
	send(CONSOLE_ALL, s, n, 0, 0);
}

int console_drain(void)
{
	uint64_t flags = lock();
	int left = 0;

	for (int i = 0; i < console_count(); i++) {
		drain(i, 0);
		left |= tx[i].head != tx[i].tail;
	}
	unlock(flags);
	return left;
}

size_t console_room(void)
{
	uint64_t flags = lock();
	size_t room = RING;

	for (int i = 0; i < console_count(); i++)
		if (!tx[i].stalled && RING - (tx[i].head - tx[i].tail) < room)
			room = RING - (tx[i].head - tx[i].tail);
	unlock(flags);
	return room;
}

int console_getc(int which)
{
	return console_is_screen(which) ? kbd_getc() : uart_getc(console_uart(which));
}

static int cmd_console(int argc, char **argv)
{
	(void)argv;
	if (argc != 1) {
		printf("usage: console (no arguments)\n");
		return -1;
	}
	for (int i = 0; i < console_count(); i++) {
		char buf[48];
		console_name(i, buf, sizeof(buf));
		printf("%-24s sent %lu, dropped %lu, waiting %u of %d bytes%s", buf, tx[i].sent, tx[i].dropped,
		       tx[i].head - tx[i].tail, RING, tx[i].stalled ? ", stalled" : "");
		if (console_is_screen(i)) {
			uint64_t lines, cycles;
			fb_cost(&lines, &cycles);
			printf(", %lu lines scrolled, %lu us drawing", lines, cycles / (tsc.hz / 1000000));
		}
		printf("\n");
	}
	netcon_print();
	return 0;
}
SHELL_CMD(console, "console", "console",
	  "each console: bytes sent, dropped (buffer full or line stalled), waiting in its buffer; the screen: "
	  "lines scrolled and time spent drawing; netconsole: datagrams and bytes sent, bytes dropped", cmd_console);
