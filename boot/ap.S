/*
 * Application processor start-up (Intel SDM vol. 3A 8.4.4.1, 9.9.1): the
 * code between ap_tramp_start and ap_tramp_end is copied by kernel/smp.c
 * to AP_TRAMPOLINE (below 1 MiB, page aligned: the STARTUP IPI's vector is
 * its page number). An AP wakes here in real mode at CS:IP = 0x0800:0000,
 * goes to protected mode on the trampoline's own GDT, turns on PAE, the
 * kernel's page tables (CR3, which identity-map low memory too), EFER.LME
 * and NXE, paging and write protection (CR0.PG, WP), far-jumps into 64-bit
 * code, then loads the kernel's GDT, enables SSE as the BSP did and jumps
 * to ap_params.entry (ap_main) with ap_params.arg on its own stack.
 * kernel/smp.c fills ap_params in the copy before each STARTUP IPI and
 * starts one AP at a time.
 */
#include "boot/cpu64.h"
#include "kernel/smp.h"

#define REL(x) ((x) - ap_tramp_start)
#define ABS(x) (AP_TRAMPOLINE + REL(x))

	.section .rodata
	.code16
	.global ap_tramp_start, ap_tramp_end
	.balign 16
ap_tramp_start:
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	lgdtl REL(ap_gdt_ptr)
	movl %cr0, %eax
	orl $1, %eax			/* PE */
	movl %eax, %cr0
	ljmpl $0x08, $ABS(ap_prot)

	.code32
ap_prot:
	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $(1 << 5), %eax		/* PAE */
	movl %eax, %cr4
	movl ABS(ap_cr3), %eax
	movl %eax, %cr3
	movl $0xc0000080, %ecx		/* IA32_EFER */
	rdmsr
	orl $(1 << 8) | (1 << 11), %eax	/* LME, NXE: the page tables use NX */
	wrmsr
	movl %cr0, %eax
	orl $0x80010000, %eax		/* PG, WP: text read-only to the kernel too */
	movl %eax, %cr0
	ljmpl $0x18, $ABS(ap_long)

	.code64
ap_long:
	movq ABS(ap_gdt64), %rax
	lgdt (%rax)
	load_data_segments
	movq ABS(ap_stack), %rsp
	movq ABS(ap_arg), %rdi
	pushq $0			/* no return address: ABI stack alignment at entry */
	pushq $0x08
	movq ABS(ap_entry), %rax
	pushq %rax
	enable_sse
	xorl %ebp, %ebp
	lretq				/* to ap_entry in the kernel's code segment */

/* null, 32-bit code (0x08), data (0x10), 64-bit code (0x18). SDM vol. 3A 3.4.5. */
	.balign 8
ap_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff
	.quad 0x00cf92000000ffff
	.quad 0x00af9a000000ffff
ap_gdt_ptr:
	.word ap_gdt_ptr - ap_gdt - 1
	.long ABS(ap_gdt)

/* Filled by kernel/smp.c in the copy: struct ap_params. */
	.balign 8
	.global ap_params
ap_params:
ap_cr3:		.quad 0
ap_gdt64:	.quad 0
ap_stack:	.quad 0
ap_entry:	.quad 0
ap_arg:		.quad 0
ap_tramp_end:
