/*
 * The system calls newlib needs (built with MISSING_SYSCALL_NAMES: plain
 * names, see docs/toolchain.md) and its retargetable locks. stdout and
 * stderr go to the UART; stdin reads it; the heap is a run of free pages
 * taken at boot (heap_init).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/lock.h>
#include <sys/stat.h>
#include "kernel/mem.h"
#include "kernel/shell.h"
#include "kernel/smp.h"
#include "kernel/trap.h"

#undef errno
extern int errno;

/* The heap's share of usable memory, and its bounds. What grows with the
 * configuration is the rings' and pools' pointer arrays (8 bytes per
 * descriptor and per packet buffer of 2 KiB and more): a 64th of memory
 * holds them for as many buffers as the memory holds. */
#define HEAP_SHARE 64
#define HEAP_MIN (256u << 10)
#define HEAP_MAX (64u << 20)
static uint8_t *heap;
static size_t heap_bytes, heap_used;

size_t heap_init(void)
{
	size_t want = mem.usable_bytes / HEAP_SHARE;
	want = want < HEAP_MIN ? HEAP_MIN : want > HEAP_MAX ? HEAP_MAX : want;
	for (uint64_t n = want / PAGE_SIZE; n && !heap; n /= 2) {
		heap = (uint8_t *)palloc_alloc(&mem.pa, n, 0);	/* zeroed as sbrk hands it out */
		heap_bytes = heap ? n * PAGE_SIZE : 0;
	}
	return heap_bytes;
}

/* Grow the heap by incr zeroed bytes; -1 with ENOMEM past its end. newlib's
 * calloc leaves memory fresh from sbrk as it is (dlmalloc's MORECORE_CLEARS),
 * and free pages may hold what the loader or firmware left there. */
void *sbrk(ptrdiff_t incr)
{
	if (incr < 0 || heap_used + (size_t)incr > heap_bytes) {
		errno = ENOMEM;
		return (void *)-1;
	}
	void *p = heap + heap_used;
	memset(p, 0, (size_t)incr);
	heap_used += (size_t)incr;
	return p;
}

size_t heap_in_use(void) { return heap_used; }
size_t heap_size(void) { return heap_bytes; }

int write(int fd, const void *buf, size_t n)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	console_write(buf, n);
	return (int)n;
}

int read(int fd, void *buf, size_t n)
{
	(void)fd;
	(void)buf;
	(void)n;
	errno = EAGAIN;
	return -1;
}

int close(int fd) { (void)fd; errno = EBADF; return -1; }
int lseek(int fd, int off, int whence) { (void)fd; (void)off; (void)whence; errno = ESPIPE; return -1; }
int isatty(int fd) { return fd >= 0 && fd <= 2; }
int getpid(void) { return 1; }
int kill(int pid, int sig) { (void)pid; (void)sig; errno = EINVAL; return -1; }

int fstat(int fd, struct stat *st)
{
	(void)fd;
	st->st_mode = S_IFCHR;	/* unbuffered-by-line console, not a file */
	return 0;
}

void _exit(int status)
{
	qemu_exit(status ? EXIT_FAIL : EXIT_OK);
}

/*
 * newlib locks (<sys/lock.h>): a test-and-set spinlock with an owner and a
 * depth for the recursive kind. Owner is the core's index + 1, so 0 means
 * nobody.
 */
struct __lock {
	volatile int locked;
	int owner, depth;
};

struct __lock __lock___sinit_recursive_mutex, __lock___sfp_recursive_mutex,
	__lock___atexit_recursive_mutex, __lock___at_quick_exit_mutex,
	__lock___malloc_recursive_mutex, __lock___env_recursive_mutex,
	__lock___tz_mutex, __lock___dd_hash_mutex, __lock___arc4random_mutex;

static int self(void) { return cpu_id() + 1; }

void __retarget_lock_init(_LOCK_T *l) { *l = calloc(1, sizeof(struct __lock)); }
void __retarget_lock_init_recursive(_LOCK_T *l) { *l = calloc(1, sizeof(struct __lock)); }
void __retarget_lock_close(_LOCK_T l) { free(l); }
void __retarget_lock_close_recursive(_LOCK_T l) { free(l); }

void __retarget_lock_acquire(_LOCK_T l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		__asm__ volatile("pause");
}

int __retarget_lock_try_acquire(_LOCK_T l)
{
	return !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

void __retarget_lock_release(_LOCK_T l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

void __retarget_lock_acquire_recursive(_LOCK_T l)
{
	if (l->locked && l->owner == self()) {
		l->depth++;
		return;
	}
	__retarget_lock_acquire(l);
	l->owner = self();
	l->depth = 1;
}

int __retarget_lock_try_acquire_recursive(_LOCK_T l)
{
	if (l->locked && l->owner == self()) {
		l->depth++;
		return 1;
	}
	if (!__retarget_lock_try_acquire(l))
		return 0;
	l->owner = self();
	l->depth = 1;
	return 1;
}

void __retarget_lock_release_recursive(_LOCK_T l)
{
	if (--l->depth == 0) {
		l->owner = 0;
		__retarget_lock_release(l);
	}
}
