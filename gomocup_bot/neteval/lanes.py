"""The net's row arithmetic in explicit vector lanes: the sums' update on a move, their copies,
and the value head's first layer.

Why not plain loops: a numba loop over a row whose length is known only at run time, storing into
one array while it reads others (a square's sums, the codebook, the pool), is vectorised behind
run-time overlap checks on every call, eight int16 lanes at a time, with a scalar copy of the loop
beside it; a move updates up to 64 such rows. Here each step is one LLVM vector operation on
whole rows (32, 8 or 1 lanes, chosen by the row's length), with no checks: the arrays are the
state's own, which never overlap. The arithmetic is the loops' own (int16 sums wrap as they did,
the clip and the pool's int32 change are the same), so the kernels' values are unchanged.

Every intrinsic takes C-contiguous arrays of any dimension with a flat element offset, so a row is
addressed without building a view (whose shape, strides and negative-index fix-ups the plain
loops paid for on every row). No bounds check: the callers compute offsets inside the arrays.
"""
from __future__ import annotations

from llvmlite import ir
from numba import njit
from numba.core import types
from numba.extending import intrinsic

WIDE = 32  # lanes of the widest step: two AVX2 registers of int16, one of AVX-512
NARROW = 8


def _ptr(context, builder, aryty, aryval, offset, lanes):
    """A pointer to ``lanes`` elements at flat element ``offset`` of a contiguous array."""
    ary = context.make_array(aryty)(context, builder, aryval)
    p = builder.gep(ary.data, [offset])
    return builder.bitcast(p, ir.VectorType(p.type.pointee, lanes).as_pointer())


def _clip(builder, x, top):
    """Lane-wise min(max(x, 0), top)."""
    zero = ir.Constant(x.type, None)
    x = builder.select(builder.icmp_signed(">", x, zero), x, zero)
    return builder.select(builder.icmp_signed("<", x, top), x, top)


def _active(builder, sums, top, lanes):
    """A row's features as int32 lanes: its int16 ``sums`` clipped to [0, ``top``]."""
    clipped = _clip(builder, sums, _splat(builder, top, ir.VectorType(ir.IntType(16), lanes)))
    return builder.sext(clipped, ir.VectorType(ir.IntType(32), lanes))


def _splat(builder, value, vtype):
    """``value`` in every lane (an integer of another width truncated or sign-extended to it)."""
    elt = vtype.element
    if isinstance(elt, ir.IntType) and value.type.width > elt.width:
        value = builder.trunc(value, elt)
    elif isinstance(elt, ir.IntType) and value.type.width < elt.width:
        value = builder.sext(value, elt)
    one = builder.insert_element(ir.Constant(vtype, ir.Undefined), value, ir.Constant(ir.IntType(32), 0))
    return builder.shuffle_vector(one, ir.Constant(vtype, ir.Undefined),
                                  ir.Constant(ir.VectorType(ir.IntType(32), vtype.count), None))


def _contiguous(dtype, *arys) -> bool:
    """Whether every one of ``arys`` is a C-contiguous array of ``dtype`` (else the intrinsic
    does not type: numba reports no matching definition)."""
    return all(isinstance(a, types.Array) and a.layout == "C" and a.dtype == dtype for a in arys)


def _shift_of(lanes):
    @intrinsic
    def shift(typingctx, acc, ia, saved, isv, cb, inew, iold, pool, ip, top):
        """saved[isv:] = acc[ia:]; acc[ia:] += cb[inew:] - cb[iold:] (int16, wrapping);
        pool[ip:] += clip(acc after) - clip(acc before), clip to [0, top] (int32)."""
        if not (_contiguous(types.int16, acc, saved, cb) and _contiguous(types.int32, pool)):
            return None
        sig = types.void(acc, ia, saved, isv, cb, inew, iold, pool, ip, top)

        def codegen(context, builder, signature, args):
            t = signature.args
            acc_v, ia_v, saved_v, isv_v, cb_v, inew_v, iold_v, pool_v, ip_v, top_v = args
            pa = _ptr(context, builder, t[0], acc_v, ia_v, lanes)
            before = builder.load(pa, align=2)
            builder.store(before, _ptr(context, builder, t[2], saved_v, isv_v, lanes), align=2)
            new = builder.load(_ptr(context, builder, t[4], cb_v, inew_v, lanes), align=2)
            old = builder.load(_ptr(context, builder, t[4], cb_v, iold_v, lanes), align=2)
            after = builder.sub(builder.add(before, new), old)
            builder.store(after, pa, align=2)
            change = builder.sub(_active(builder, after, top_v, lanes), _active(builder, before, top_v, lanes))
            pp = _ptr(context, builder, t[7], pool_v, ip_v, lanes)
            builder.store(builder.add(builder.load(pp, align=4), change), pp, align=4)
            return context.get_dummy_value()

        return sig, codegen

    return shift


def _copy_of(lanes):
    @intrinsic
    def copy(typingctx, dst, idst, src, isrc):
        """dst[idst:] = src[isrc:] (same element type)."""
        if not (isinstance(dst, types.Array) and _contiguous(dst.dtype, dst, src)):
            return None
        sig = types.void(dst, idst, src, isrc)

        def codegen(context, builder, signature, args):
            t = signature.args
            value = builder.load(_ptr(context, builder, t[2], args[2], args[3], lanes), align=1)
            builder.store(value, _ptr(context, builder, t[0], args[0], args[1], lanes), align=1)
            return context.get_dummy_value()

        return sig, codegen

    return copy


def _unpool_of(lanes):
    @intrinsic
    def unpool(typingctx, pool, ip, hist, ih, acc, ia, act0, top):
        """hist[ih:] = pool[ip:]; pool[ip:] -= clip(acc[ia:], 0, top) - act0[ip:] (a square a
        stone now fills leaves the pool; int32 pool, int16 sums)."""
        if not (_contiguous(types.int32, pool, hist, act0) and _contiguous(types.int16, acc)):
            return None
        sig = types.void(pool, ip, hist, ih, acc, ia, act0, top)

        def codegen(context, builder, signature, args):
            t = signature.args
            pool_v, ip_v, hist_v, ih_v, acc_v, ia_v, act0_v, top_v = args
            pp = _ptr(context, builder, t[0], pool_v, ip_v, lanes)
            pool = builder.load(pp, align=4)
            builder.store(pool, _ptr(context, builder, t[2], hist_v, ih_v, lanes), align=4)
            sums = builder.load(_ptr(context, builder, t[4], acc_v, ia_v, lanes), align=2)
            act = _active(builder, sums, top_v, lanes)
            zero_act = builder.load(_ptr(context, builder, t[6], act0_v, ip_v, lanes), align=4)
            builder.store(builder.sub(pool, builder.sub(act, zero_act)), pp, align=4)
            return context.get_dummy_value()

        return sig, codegen

    return unpool


def _axpy_of(lanes):
    @intrinsic
    def axpy(typingctx, y, iy, x, w, iw):
        """y[iy:] += x * w[iw:] (float32; fast-math, as the head's loops were compiled)."""
        if not _contiguous(types.float32, y, w) or x != types.float32:
            return None
        sig = types.void(y, iy, x, w, iw)

        def codegen(context, builder, signature, args):
            t = signature.args
            y_v, iy_v, x_v, w_v, iw_v = args
            xs = _splat(builder, x_v, ir.VectorType(ir.FloatType(), lanes))
            py = _ptr(context, builder, t[0], y_v, iy_v, lanes)
            wv = builder.load(_ptr(context, builder, t[3], w_v, iw_v, lanes), align=4)
            total = builder.fadd(builder.load(py, align=4), builder.fmul(xs, wv, flags=("fast",)), flags=("fast",))
            builder.store(total, py, align=4)
            return context.get_dummy_value()

        return sig, codegen

    return axpy


_shift_w, _shift_n, _shift_1 = _shift_of(WIDE), _shift_of(NARROW), _shift_of(1)
_copy_w, _copy_n, _copy_1 = _copy_of(WIDE), _copy_of(NARROW), _copy_of(1)
_unpool_w, _unpool_n, _unpool_1 = _unpool_of(WIDE), _unpool_of(NARROW), _unpool_of(1)
_axpy_w, _axpy_n, _axpy_1 = _axpy_of(WIDE), _axpy_of(NARROW), _axpy_of(1)


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def shift_row(acc, ia, saved, isv, cb, inew, iold, pool, ip, top, length):
    """One square's sums for one side (``length`` lanes at ``ia``): saved first, codebook row
    ``inew`` in, ``iold`` out, the pool at ``ip`` by the change of their clipped values."""
    f = 0
    while f + WIDE <= length:
        _shift_w(acc, ia + f, saved, isv + f, cb, inew + f, iold + f, pool, ip + f, top)
        f += WIDE
    while f + NARROW <= length:
        _shift_n(acc, ia + f, saved, isv + f, cb, inew + f, iold + f, pool, ip + f, top)
        f += NARROW
    while f < length:
        _shift_1(acc, ia + f, saved, isv + f, cb, inew + f, iold + f, pool, ip + f, top)
        f += 1


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def copy_row(dst, idst, src, isrc, length):
    """``length`` elements of ``src`` at ``isrc`` to ``dst`` at ``idst``."""
    f = 0
    while f + WIDE <= length:
        _copy_w(dst, idst + f, src, isrc + f)
        f += WIDE
    while f + NARROW <= length:
        _copy_n(dst, idst + f, src, isrc + f)
        f += NARROW
    while f < length:
        _copy_1(dst, idst + f, src, isrc + f)
        f += 1


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def unpool_row(pool, ip, hist, ih, acc, ia, act0, top, length):
    """The pool kept in ``hist``, then the square whose sums are at ``ia`` taken out of it."""
    f = 0
    while f + WIDE <= length:
        _unpool_w(pool, ip + f, hist, ih + f, acc, ia + f, act0, top)
        f += WIDE
    while f + NARROW <= length:
        _unpool_n(pool, ip + f, hist, ih + f, acc, ia + f, act0, top)
        f += NARROW
    while f < length:
        _unpool_1(pool, ip + f, hist, ih + f, acc, ia + f, act0, top)
        f += 1


@njit(cache=True, nogil=True, forceinline=True, _nrt=False)
def axpy_row(y, x, w, iw, length):
    """y[:length] += x * w[iw:iw + length]: one input's weights into the head's hidden units."""
    f = 0
    while f + WIDE <= length:
        _axpy_w(y, f, x, w, iw + f)
        f += WIDE
    while f + NARROW <= length:
        _axpy_n(y, f, x, w, iw + f)
        f += NARROW
    while f < length:
        _axpy_1(y, f, x, w, iw + f)
        f += 1
