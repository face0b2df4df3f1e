/* Host stand-in for kernel/smp.h in the fuzz harnesses: the real header,
 * with cpu_id() and cpu_id_fast() on one core (the kernel reads them
 * through %gs). */
#ifndef FUZZ_SHIM_SMP_H
#define FUZZ_SHIM_SMP_H
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
