"""Bit-level intrinsics for the kernels: count trailing / leading zeros of a uint64 (LLVM cttz /
ctlz: one tzcnt / lzcnt on x86-64 with BMI, defined as 64 for 0) and an unaligned 8-byte load.

They compile to single instructions and carry no array reference counting.
"""
from __future__ import annotations

from llvmlite import ir
from numba.core import types
from numba.core.extending import intrinsic


@intrinsic
def tz64(typingctx, x):
    """Trailing zero bits of a uint64 (64 for 0)."""

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(types.uint64), codegen


@intrinsic
def lz64(typingctx, x):
    """Leading zero bits of a uint64 (64 for 0)."""

    def codegen(context, builder, sig, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(types.uint64), codegen


@intrinsic
def load8(typingctx, arr, i):
    """The 8 bytes of a 1-D contiguous array starting at element i (unsigned), as a little-endian
    uint64, unaligned. No bounds check: the caller keeps i + 8 bytes inside the array."""
    if not isinstance(arr, types.Array) or arr.ndim != 1 or not isinstance(i, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = builder.gep(ary.data, [args[1]])
        return builder.load(builder.bitcast(ptr, ir.IntType(64).as_pointer()), align=1)

    return types.uint64(arr, i), codegen
