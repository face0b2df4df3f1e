/* For the assembly entries (boot/entry.S, boot/ap.S): what every core does
 * once in 64-bit mode, before any C. */
#ifndef BOOT_CPU64_H
#define BOOT_CPU64_H
/* Data segments from the kernel's GDT (0x10), FS and GS null (the GS base
 * is set by kernel/smp.c). SDM vol. 3A 3.4.4. Clobbers %ax. */
.macro load_data_segments
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
.endm
/* SSE on, since newlib and GCC's code use it (SDM vol. 3A 13.1.3):
 * CR0.EM = 0, CR0.MP = 1, CR4.OSFXSR | OSXMMEXCPT. Clobbers %rax. */
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
