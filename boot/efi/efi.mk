# GNU-EFI loader (boot/efi/loader.c) with the kernel ELF embedded:
# $(BUILD)/BOOTX64.EFI, to be copied to EFI/BOOT/ on an EFI system partition.
# Included by the top-level Makefile; standalone use:
#   make -f boot/efi/efi.mk BUILD=/tmp/x [EFI_KERNEL=/path/to/kernel.elf]
# Recipe and flags: docs/toolchain.md section 4.

BUILD ?= build
EFI_KERNEL ?= $(BUILD)/linerate.elf
EFI_DIR = $(BUILD)/efi
EFI_CFLAGS = -I/usr/include/efi -I/usr/include/efi/x86_64 -I. -O2 -Wall -Wextra \
	-fpic -ffreestanding -fno-stack-protector -fno-stack-check -fshort-wchar \
	-mno-red-zone -maccumulate-outgoing-args -DGNU_EFI_USE_MS_ABI
EFI_LDFLAGS = -shared -Bsymbolic -nostdlib -znocombreloc -z noexecstack -T /usr/lib/elf_x86_64_efi.lds
# Sections kept in the PE image; the linker script puts the kernel's .rodata.kernel into .data.
EFI_SECTIONS = .text .sdata .data .rodata .dynamic .dynsym .rel .rela .rel.* .rela.* .reloc

# The kernel is copied, stripped (the loader reads only program headers and
# segments), to kernel.elf so that objcopy names its symbols
# _binary_kernel_elf_start/_end whatever EFI_KERNEL is; 8-byte alignment lets
# the loader read the ELF headers in place.
$(BUILD)/BOOTX64.EFI: boot/efi/loader.c kernel/boot_info.h $(EFI_KERNEL)
	@mkdir -p $(EFI_DIR)
	gcc $(EFI_CFLAGS) -c boot/efi/loader.c -o $(EFI_DIR)/loader.o
	objcopy --strip-all $(EFI_KERNEL) $(EFI_DIR)/kernel.elf
	cd $(EFI_DIR) && objcopy -I binary -O elf64-x86-64 -B i386:x86-64 \
		--rename-section .data=.rodata.kernel,alloc,load,readonly,data,contents \
		--set-section-alignment .data=8 kernel.elf kernel.o
	ld $(EFI_LDFLAGS) /usr/lib/crt0-efi-x86_64.o $(EFI_DIR)/loader.o $(EFI_DIR)/kernel.o \
		-o $(EFI_DIR)/loader.so -L/usr/lib -lefi -lgnuefi
	objcopy $(foreach s,$(EFI_SECTIONS),-j '$(s)') --target efi-app-x86_64 --subsystem=10 \
		$(EFI_DIR)/loader.so $@
