/*
 * The 256 interrupt entry stubs and the common paths: push the general
 * registers, fxsave the SSE state (handlers are ordinary C that may use
 * SSE), call trap(struct trapframe *), and return with iretq. Exceptions
 * (vectors 0-31) save every register for the report; interrupts save only
 * those a C call may change (SysV ABI: rbx, rbp, r12-r15 survive trap()),
 * leaving the others' trapframe slots unwritten.
 * Vectors 8, 10-14, 17, 21, 29, 30 push an error code (SDM vol. 3A 6.15);
 * the others push a 0 in its place. Stub n is at trap_stubs + 16 * n.
 */
	.text
	.code64

	.balign 16
	.global trap_stubs
trap_stubs:
	.set i, 0
	.rept 256
	.balign 16
	.if (i == 8) || ((i >= 10) && (i <= 14)) || (i == 17) || (i == 21) || (i == 29) || (i == 30)
	.else
	pushq $0
	.endif
	pushq $i
	.if i < 32
	jmp trap_common
	.else
	jmp irq_common
	.endif
	.set i, i + 1
	.endr

/* The call-clobbered registers, in struct trapframe's order. */
	.macro push_scratch
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	.endm

/* trap(frame at %rsp) with the SSE state saved below the frame. */
	.macro call_trap
	movq %rsp, %rdi
	subq $512, %rsp
	fxsave (%rsp)
	cld
	call trap
	fxrstor (%rsp)
	.endm

/* Every register. */
trap_common:
	push_scratch
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	call_trap
	addq $512, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	jmp restore_scratch

/* The call-clobbered registers; room for the six others, unwritten. */
irq_common:
	push_scratch
	subq $48, %rsp
	call_trap
	addq $560, %rsp
restore_scratch:
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rax
	addq $16, %rsp
	iretq
