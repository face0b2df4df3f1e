/* Host stand-in for kernel/smp.h in the fuzz harnesses: the real header,
 * with cpu_id() and cpu_id_fast() on one core (the kernel reads them
 * through %gs), and per-core arrays of that one core only: the state put
 * back before every input (fuzz_state.h) is then a fifth of the size. */
#ifndef FUZZ_SHIM_SMP_H
#define FUZZ_SHIM_SMP_H
#define MAX_CPUS 1
#define cpu_id kernel_cpu_id
#define cpu_id_fast kernel_cpu_id_fast
#include "../../../../kernel/smp.h"
#undef cpu_id
#undef cpu_id_fast
static inline int cpu_id(void)
{
	return 0;
}
static inline int cpu_id_fast(void)
{
	return 0;
}
#endif
