/* Unit tests for kernel/conout.c (included): each console's ring against
 * UARTs and a screen the test plays. "\n" goes out as "\r\n" (not raw),
 * bytes arrive in order across the ring's wrap, a full ring drops and
 * counts what does not fit (console_queue) or waits for the UART
 * (console_out), a UART that takes nothing is stalled and its bytes
 * counted dropped, and netconsole gets each line once, untranslated. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "kernel/conout.c"

uint64_t fuzz_tsc;
struct tsc_info tsc = { .hz = 1000000000 };

#define CONS 3	/* two UARTs, then the screen */
#define OUT 65536
static struct uart uarts[2];
static int takes[2] = { 1, 1 };	/* the UART's FIFO empties when polled */
static char got[CONS][OUT], net[OUT];
static size_t ngot[CONS], nnet;
static int ncons = 2;

int console_count(void) { return ncons; }
struct uart *console_uart(int i) { return &uarts[i]; }
void console_name(int i, char *buf, size_t len) { snprintf(buf, len, "ttyS%d", i); }
int console_is_screen(int i) { return i == 2; }
void fb_write(const char *s, size_t n) { memcpy(got[2] + ngot[2], s, n); ngot[2] += n; }
void fb_cost(uint64_t *lines, uint64_t *cycles) { *lines = *cycles = 0; }
int kbd_getc(void) { return -1; }
int uart_getc(struct uart *u) { (void)u; return -1; }
void netcon_put(const char *s, size_t n) { memcpy(net + nnet, s, n); nnet += n; }
void netcon_print(void) {}

int uart_tx_ready(struct uart *u)
{
	if (!u->tx_room && takes[u - uarts])
		u->tx_room = 16;
	return u->tx_room > 0;
}

int uart_tx_wait(struct uart *u)
{
	return uart_tx_ready(u) ? 0 : -1;
}

size_t uart_write(struct uart *u, const char *s, size_t n)
{
	size_t i = (size_t)(u - uarts), k = n < (size_t)u->tx_room ? n : (size_t)u->tx_room;

	memcpy(got[i] + ngot[i], s, k);
	ngot[i] += k;
	u->tx_room -= (int)k;
	return k;
}

static int setup(void **state)
{
	(void)state;
	memset(tx, 0, sizeof(tx));
	memset(uarts, 0, sizeof(uarts));
	memset(ngot, 0, sizeof(ngot));
	nnet = 0;
	takes[0] = takes[1] = 1;
	ncons = 2;
	return 0;
}

static void drain_all(void)
{
	for (int i = 0; i < 100000 && console_drain(); i++)
		;
	assert_int_equal(console_drain(), 0);
}

static void test_newlines(void **state)
{
	(void)state;
	ncons = 3;
	console_queue("ab\ncd\n\nef", 9);
	console_out_raw(1, "x\ny", 3);
	drain_all();
	assert_int_equal(ngot[0], 12);
	assert_memory_equal(got[0], "ab\r\ncd\r\n\r\nef", 12);
	assert_int_equal(ngot[1], 15);
	assert_memory_equal(got[1], "ab\r\ncd\r\n\r\nefx\ny", 15);
	assert_int_equal(ngot[2], 12);
	assert_memory_equal(got[2], "ab\r\ncd\r\n\r\nef", 12);
	assert_int_equal(nnet, 9);
	assert_memory_equal(net, "ab\ncd\n\nef", 9);
	assert_int_equal(tx[0].sent, 12);
	assert_int_equal(tx[0].dropped, 0);
}

/* Lines of every length 1-149 queued while the UARTs take 80 bytes a line
 * (16 a poll): the ring fills to ~2.5 KiB and wraps, every byte arrives
 * once, in order. */
static void test_wrap_in_order(void **state)
{
	static char want[OUT];
	char line[150];
	size_t nwant = 0;
	(void)state;
	for (int len = 1; len < 150; len++) {
		for (int k = 0; k < len - 1; k++)
			line[k] = (char)('a' + (len + k) % 26);
		line[len - 1] = '\n';
		console_queue(line, (size_t)len);
		memcpy(want + nwant, line, (size_t)len - 1);
		memcpy(want + nwant + len - 1, "\r\n", 2);
		nwant += (size_t)len + 1;
		for (int k = 0; k < 5; k++)
			console_drain();
	}
	drain_all();
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ngot[i], nwant);
		assert_memory_equal(got[i], want, nwant);
		assert_int_equal(tx[i].sent, nwant);
		assert_int_equal(tx[i].dropped, 0);
	}
	assert_true(nwant > 2 * RING);
}

/* A UART that takes nothing: console_queue keeps RING bytes and counts the
 * rest dropped; when it takes again they go out, the dropped never. */
static void test_queue_full_drops(void **state)
{
	static char s[RING + 1000];
	(void)state;
	for (size_t k = 0; k < sizeof(s); k++)
		s[k] = (char)('A' + k % 26);
	takes[0] = 0;
	console_queue(s, 1000);
	console_drain();
	console_queue(s + 1000, sizeof(s) - 1000);
	assert_int_equal(tx[0].head - tx[0].tail, RING);
	assert_int_equal(tx[0].dropped, 1000);
	assert_int_equal(console_room(), 0);	/* console 0, full, is not stalled yet */
	takes[0] = 1;
	drain_all();
	assert_int_equal(ngot[0], RING);
	assert_memory_equal(got[0], s, RING);
	assert_int_equal(ngot[1], sizeof(s));
	assert_memory_equal(got[1], s, sizeof(s));
	assert_int_equal(tx[1].dropped, 0);
}

/* console_out waits for the UART through a full ring: nothing dropped. */
static void test_out_waits(void **state)
{
	static char s[3 * RING];
	(void)state;
	for (size_t k = 0; k < sizeof(s); k++)
		s[k] = (char)('a' + k % 23);
	console_queue("head", 4);
	console_out(0, s, sizeof(s));
	assert_int_equal(ngot[0], 4 + sizeof(s));
	assert_memory_equal(got[0], "head", 4);
	assert_memory_equal(got[0] + 4, s, sizeof(s));
	assert_int_equal(tx[0].dropped, 0);
	assert_int_equal(tx[0].head, tx[0].tail);
	assert_int_equal(ngot[1], 0);	/* queued for it, not yet drained */
	assert_int_equal(tx[1].head - tx[1].tail, 4);
}

/* A stalled UART: console_out drops what waits and what it writes (counted)
 * without waiting, until the UART takes again; console_queue then past
 * STALL_MS drops it too. */
static void test_stall(void **state)
{
	(void)state;
	takes[1] = 0;
	console_out(1, "abc\n", 4);
	assert_int_equal(tx[1].stalled, 1);
	assert_int_equal(tx[1].dropped, 5);
	assert_int_equal(tx[1].head, tx[1].tail);
	console_out(1, "de", 2);
	assert_int_equal(tx[1].dropped, 7);
	assert_int_equal(console_room(), RING);	/* a stalled console does not count */
	console_queue("fg", 2);
	console_drain();
	assert_int_equal(tx[1].head - tx[1].tail, 2);
	fuzz_tsc += tsc.hz / 1000 * (STALL_MS + 1);
	console_drain();
	assert_int_equal(tx[1].dropped, 9);
	takes[1] = 1;
	console_out(1, "hi", 2);
	assert_int_equal(tx[1].stalled, 0);
	assert_int_equal(ngot[1], 2);
	assert_memory_equal(got[1], "hi", 2);
	assert_int_equal(tx[1].sent, 2);
	assert_int_equal(ngot[0], 2);
	assert_memory_equal(got[0], "fg", 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_newlines, setup),
		cmocka_unit_test_setup(test_wrap_in_order, setup),
		cmocka_unit_test_setup(test_queue_full_drops, setup),
		cmocka_unit_test_setup(test_out_waits, setup),
		cmocka_unit_test_setup(test_stall, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
