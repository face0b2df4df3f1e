/* Host stand-in for kernel/cpu.h in the fuzz harnesses: the TSC is a
 * counter the harness advances (deterministic runs); nothing privileged. */
#ifndef CPU_H
#define CPU_H
#include <stdint.h>

extern uint64_t fuzz_tsc;
static inline uint64_t rdtsc(void) { return fuzz_tsc; }
static inline void cpu_relax(void) {}
static inline void irq_on(void) {}
static inline void irq_off(void) {}
static inline void safe_halt(void) {}
static inline uint64_t irq_save(void) { return 0; }
static inline void irq_restore(uint64_t flags) { (void)flags; }
#endif
