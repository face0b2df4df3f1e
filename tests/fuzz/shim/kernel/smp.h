/* Host stand-in for kernel/smp.h in the fuzz harnesses: the real header,
 * with cpu_id() on one core (the kernel reads it through %gs). */
#ifndef FUZZ_SHIM_SMP_H
#define FUZZ_SHIM_SMP_H
#define cpu_id kernel_cpu_id
#include "../../../../kernel/smp.h"
#undef cpu_id
static inline int cpu_id(void)
{
	return 0;
}
#endif
