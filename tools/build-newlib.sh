#!/bin/sh
# Build newlib 3.3.0 from Debian's newlib-source for a freestanding x86_64
# long-mode kernel (see docs/toolchain.md section 1). Output: $1/sysroot.
# Locks are retargetable: the kernel supplies the __retarget_lock_* calls so
# malloc and stdio are safe once a second core runs.
set -eu
OUT=$(realpath -m "$1")
SRC=/usr/src/newlib/newlib-3.3.0.tar.xz
[ -f "$SRC" ] || { echo "missing $SRC: run 'make deps'" >&2; exit 1; }
rm -rf "$OUT/newlib-src" "$OUT/newlib-build"
mkdir -p "$OUT/newlib-src" "$OUT/newlib-build"
tar xf "$SRC" -C "$OUT/newlib-src"
GCCINC=$(gcc -print-file-name=include)
cd "$OUT/newlib-build"
../newlib-src/newlib-salsa/configure \
  --target=x86_64-elf --prefix="$OUT/sysroot" \
  --disable-multilib --disable-nls \
  --disable-newlib-supplied-syscalls \
  --enable-newlib-retargetable-locking \
  --enable-newlib-reent-small \
  --enable-newlib-io-long-long --enable-newlib-io-c99-formats \
  CC_FOR_TARGET=gcc AS_FOR_TARGET=as LD_FOR_TARGET=ld AR_FOR_TARGET=ar RANLIB_FOR_TARGET=ranlib \
  NM_FOR_TARGET=nm OBJDUMP_FOR_TARGET=objdump OBJCOPY_FOR_TARGET=objcopy STRIP_FOR_TARGET=strip READELF_FOR_TARGET=readelf \
  CFLAGS_FOR_TARGET="-O2 -mno-red-zone -fno-pic -fno-pie -mcmodel=kernel -ffreestanding -fno-stack-protector -fno-asynchronous-unwind-tables -nostdinc -isystem $GCCINC" \
  > configure.log 2>&1
make -j"$(nproc)" all-target-newlib > build.log 2>&1
make install-target-newlib > install.log 2>&1
rm -rf "$OUT/newlib-src" "$OUT/newlib-build"
