/*
 * The system calls newlib needs (built with MISSING_SYSCALL_NAMES: plain
 * names, see ../shared/TOOLCHAIN.md) and its retargetable locks. stdout and
 * stderr go to the UART; stdin reads it; the heap is a fixed arena.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/lock.h>
#include <sys/stat.h>
#include "kernel/shell.h"
#include "kernel/smp.h"
#include "kernel/trap.h"

#undef errno
extern int errno;

#define HEAP_SIZE (1u << 20)
/* In .heap, which boot/entry.S does not zero: malloc does not promise zeroes. */
static uint8_t heap[HEAP_SIZE] __attribute__((aligned(64), section(".heap")));
static size_t heap_used;

/* Grow the heap by incr bytes; -1 with ENOMEM past HEAP_SIZE. */
void *sbrk(ptrdiff_t incr)
{
	if (incr < 0 || heap_used + (size_t)incr > HEAP_SIZE) {
		errno = ENOMEM;
		return (void *)-1;
	}
	void *p = heap + heap_used;
	heap_used += (size_t)incr;
	return p;
}

/* Bytes of the heap arena handed to malloc so far, and its size. */
size_t heap_in_use(void) { return heap_used; }
size_t heap_size(void) { return HEAP_SIZE; }

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
