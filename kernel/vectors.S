/*
 * The 256 interrupt entry stubs and the common path: push the general
 * registers, fxsave the SSE state (handlers are ordinary C that may use
 * SSE), call trap(struct trapframe *), and return with iretq.
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
	jmp trap_common
	.set i, i + 1
	.endr

trap_common:
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, %rdi
	subq $512, %rsp
	fxsave (%rsp)
	cld
	call trap
	fxrstor (%rsp)
	addq $512, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
	addq $16, %rsp
	iretq
