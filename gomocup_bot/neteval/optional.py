"""The net's kernels as a search calls them when the net may be off.

A search that runs on the tables carries `NoNet` where a net search carries its `NetState`:
another numba type, so its kernels compile without the net's code and pass no net arrays from
call to call (the state's sixteen arrays, flattened into every call of the recursive search, made
the tables' search 6-10 % slower when it carried a placeholder of the net's own type). The
functions below resolve at compile time: on a `NoNet` each one is the identity or nothing; on a
`NetState` each calls the kernel of `state`.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import types
from numba.extending import overload

from .state import net_play, net_policy, net_take, net_value, net_value_mean

NoNet = namedtuple("NoNet", ["none"])


def no_net() -> NoNet:
    """The placeholder a search on the tables carries."""
    return NoNet(np.zeros(1, dtype=np.int8))


def _is_no_net(n) -> bool:
    return isinstance(n, types.BaseNamedTuple) and n.instance_class is NoNet


def maybe_play(n, b, p, colour):
    """`state.net_play` on a net's state; nothing on `NoNet` (jitted code only)."""
    raise NotImplementedError("called from numba kernels only")


def maybe_take(n, b, p, colour):
    """`state.net_take` on a net's state; nothing on `NoNet` (jitted code only)."""
    raise NotImplementedError("called from numba kernels only")


def maybe_value(n, view, mask, tables, prev):
    """`state.net_value` on a net's state (`state.net_value_mean` with the pool before move
    ``prev`` when ``prev`` >= 0); the tables' value ``tables`` on `NoNet` (jitted code only)."""
    raise NotImplementedError("called from numba kernels only")


def maybe_policy(n, view, q):
    """`state.net_policy` on a net's state; 0 on `NoNet` (jitted code only)."""
    raise NotImplementedError("called from numba kernels only")


_OPTIONS = {"_nrt": False, "nogil": True}


@overload(maybe_play, jit_options=_OPTIONS)
def _maybe_play(n, b, p, colour):
    if _is_no_net(n):
        return lambda n, b, p, colour: None
    return lambda n, b, p, colour: net_play(n, b, p, colour)


@overload(maybe_take, jit_options=_OPTIONS)
def _maybe_take(n, b, p, colour):
    if _is_no_net(n):
        return lambda n, b, p, colour: None
    return lambda n, b, p, colour: net_take(n, b, p, colour)


@overload(maybe_value, jit_options=_OPTIONS)
def _maybe_value(n, view, mask, tables, prev):
    if _is_no_net(n):
        return lambda n, view, mask, tables, prev: np.int64(tables)

    def value(n, view, mask, tables, prev):
        if prev >= 0:
            return net_value_mean(n, view, mask, tables, prev)
        return net_value(n, view, mask, tables)
    return value


@overload(maybe_policy, jit_options=_OPTIONS)
def _maybe_policy(n, view, q):
    if _is_no_net(n):
        return lambda n, view, q: np.float32(0.0)
    return lambda n, view, q: net_policy(n, view, q)
