/* For the assembly entries (boot/entry.S, boot/ap.S): turn on SSE before
 * any C runs, since newlib and GCC's code use it (SDM vol. 3A 13.1.3):
 * CR0.EM = 0, CR0.MP = 1, CR4.OSFXSR | OSXMMEXCPT. Clobbers %rax. */
#ifndef BOOT_SSE_H
#define BOOT_SSE_H
.macro enable_sse
	movq %cr0, %rax
	andq $~(1 << 2), %rax
	orq $(1 << 1), %rax
	movq %rax, %cr0
	movq %cr4, %rax
	orq $(1 << 9) | (1 << 10), %rax
	movq %rax, %cr4
.endm
#endif
