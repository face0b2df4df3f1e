/*
 * Ways into the kernel, all ending in kernel_main() in long mode with the
 * early identity map (0-4 GiB, 2 MiB pages) and SSE enabled:
 *   _start_mb2  Multiboot2 (GRUB, BIOS and UEFI): 32-bit protected mode,
 *               EAX = 0x36d76289, EBX = info (Multiboot2 spec 3.3).
 *   _start_pvh  Xen PVH (QEMU -kernel): 32-bit protected mode, paging off,
 *               EBX = struct hvm_start_info (xen/include/public/arch-x86/hvm/start_info.h).
 *   _start_efi  the GNU-EFI loader: long mode, RDI = struct boot_info *.
 */
#include "boot/cpu64.h"
#include "kernel/boot_info.h"
#include "kernel/smp.h"

#define MB2_MAGIC 0xe85250d6
#define MB2_ARCH_I386 0
#define STACK_SIZE (64 * 1024)

/* Multiboot2 header: in the first 32 KiB, 8-byte aligned (spec 3.1). */
	.section .multiboot2, "a"
	.balign 8
mb2_header:
	.long MB2_MAGIC, MB2_ARCH_I386, mb2_header_end - mb2_header
	.long -(MB2_MAGIC + MB2_ARCH_I386 + (mb2_header_end - mb2_header))
	/* Framebuffer tag, optional, no preference: keeps GRUB-EFI quiet (spec 3.1.10). */
	.balign 8
	.word 5, 1
	.long 20, 0, 0, 0
	.balign 8
	.word 0, 0
	.long 8
mb2_header_end:

/* PVH entry note: XEN_ELFNOTE_PHYS32_ENTRY = 18. */
	.section .note.pvh, "a"
	.balign 4
	.long 4, 4, 18
	.asciz "Xen"
	.balign 4
	.long _start_pvh

/* Our own note: the 64-bit entry the EFI loader calls. */
	.section .note.linerate, "a"
	.balign 4
	.long 9, 8, LINERATE_NOTE_EFI_ENTRY
	.asciz "linerate"
	.balign 4
	.quad _start_efi

	.section .text.entry, "ax"
	.code32
	.global _start_mb2, _start_pvh
_start_pvh:
	movl $BOOT_PVH, %esi
	jmp start32
_start_mb2:
	movl $BOOT_MULTIBOOT2, %esi
start32:
	cli
	movl %eax, %edi
	rdtsc
	movl %eax, boot_entry_tsc
	movl %edx, boot_entry_tsc + 4
	movl %edi, boot_magic
	movl %ebx, boot_info_addr
	movl %esi, boot_path
	movl $boot_stack_top, %esp

	/* Long mode present? CPUID 0x80000001 EDX bit 29 (SDM vol. 3A 9.8.5). */
	movl $0x80000000, %eax
	cpuid
	cmpl $0x80000001, %eax
	jb no_long_mode
	movl $0x80000001, %eax
	cpuid
	btl $29, %edx
	jnc no_long_mode

	/* PAE, CR3, EFER.LME, then paging (SDM vol. 3A 9.8.5). */
	movl %cr4, %eax
	orl $(1 << 5), %eax
	movl %eax, %cr4
	movl $early_pml4, %eax
	movl %eax, %cr3
	movl $0xc0000080, %ecx
	rdmsr
	orl $(1 << 8), %eax
	wrmsr
	movl %cr0, %eax
	orl $0x80000001, %eax
	movl %eax, %cr0
	lgdt gdt64_ptr
	ljmp $0x08, $start64_zero

no_long_mode:
	movl $msg_no_lm, %esi
1:	lodsb
	testb %al, %al
	jz 2f
	movw $0x3f8, %dx
	outb %al, %dx
	jmp 1b
2:	hlt
	jmp 2b

	.code64
	.global _start_efi
_start_efi:
	cli
	movq %rdi, %rsi
	rdtsc
	movl %eax, boot_entry_tsc(%rip)
	movl %edx, boot_entry_tsc + 4(%rip)
	movl $BOOT_UEFI, boot_path(%rip)
	lgdt gdt64_ptr(%rip)
	pushq $0x08
	leaq 1f(%rip), %rax
	pushq %rax
	lretq
1:	movw $0x10, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	leaq boot_stack_top(%rip), %rsp
	/* Zero .bss, then copy the loader's boot_info into it: the loader's
	 * copy may lie above 4 GiB, outside the early map. */
	leaq __bss_start(%rip), %rdi
	leaq __bss_end(%rip), %rcx
	subq %rdi, %rcx
	shrq $3, %rcx
	xorl %eax, %eax
	cld
	rep stosq
	leaq boot_info_efi(%rip), %rdi
	movq %rdi, boot_info_addr(%rip)
	movl $(BOOT_INFO_SIZE / 8), %ecx
	rep movsq
	leaq early_pml4(%rip), %rax
	movq %rax, %cr3
	jmp start64

	/* Multiboot2/PVH: zero .bss here, not every loader promises to (the
	 * stack is in it: nothing was pushed yet). Eight bytes a step, its ends
	 * are 8-byte aligned: under QEMU TCG each step of a rep is emulated on
	 * its own, and .bss is megabytes. */
start64_zero:
	movl $__bss_start, %edi
	movl $__bss_end, %ecx
	subl %edi, %ecx
	shrl $3, %ecx
	xorl %eax, %eax
	cld
	rep stosq
start64:
	load_data_segments
	leaq boot_stack_top(%rip), %rsp
	enable_sse
	xorl %ebp, %ebp
	call kernel_main
3:	hlt
	jmp 3b

	.section .rodata
msg_no_lm:
	.asciz "linerate: this CPU has no long mode (x86-64); halting\r\n"

	.section .data
	.balign 8
	.global boot_entry_tsc, boot_magic, boot_info_addr, boot_path
boot_entry_tsc:	.quad 0
boot_info_addr:	.quad 0
boot_magic:	.long 0
boot_path:	.long 0

/* GDT: null, 64-bit code (0x08), data (0x10), then each core's TSS
 * descriptor (16 bytes, from 0x18; kernel/stacks.c). SDM vol. 3A 3.4.5. */
	.balign 16
	.global gdt64, gdt64_ptr
gdt64:
	.quad 0
	.quad 0x00af9a000000ffff
	.quad 0x00cf92000000ffff
	.fill 2 * MAX_CPUS, 8, 0
gdt64_end:
	.balign 8
gdt64_ptr:
	.word gdt64_end - gdt64 - 1
	.quad gdt64

/* Early page tables: identity map of 0-4 GiB with 2 MiB pages, present|rw|ps. */
	.balign 4096
	.global early_pml4
early_pml4:
	.quad early_pdpt + 0x3
	.fill 511, 8, 0
early_pdpt:
	.quad early_pd + 0x3
	.quad early_pd + 0x1000 + 0x3
	.quad early_pd + 0x2000 + 0x3
	.quad early_pd + 0x3000 + 0x3
	.fill 508, 8, 0
early_pd:
	.set addr, 0
	.rept 2048
	.quad addr + 0x83
	.set addr, addr + 0x200000
	.endr

	.section .bss
	.balign 16
boot_info_efi:
	.skip BOOT_INFO_SIZE
	.balign 4096
boot_stack_guard:	/* unmapped by kernel/stacks.c: an overflow faults here */
	.skip 4096
	.global boot_stack, boot_stack_top
boot_stack:
	.skip STACK_SIZE
boot_stack_top:
