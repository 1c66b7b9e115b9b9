"""A tiny reproducible random generator for kernels (xorshift64*), state = uint64[1].

Our own generator (not numba's np.random) so that a seed fixes a bench's node count exactly, and
each thread can own its state array.
"""
from __future__ import annotations

import numpy as np
from numba import njit


def new_rng(seed: int) -> np.ndarray:
    """A generator state from any integer seed (never the all-zero state)."""
    x = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFFFFFFFFFFFFFF
    return np.array([x or 1], dtype=np.uint64)


@njit(cache=True, nogil=True, forceinline=True)
def xorshift(x):
    """One xorshift64 step of a state word (hot loops keep the word in a register and store it back
    into the state array when they stop: the same stream as `next_u64` / `rand_below`)."""
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    return x


@njit(cache=True, nogil=True, forceinline=True)
def below(x, n):
    """The `rand_below` value for state word x (already stepped): uniform in [0, n), as uint64."""
    return (((x * np.uint64(0x2545F4914F6CDD1D)) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32)


@njit(cache=True, nogil=True)
def next_u64(state):
    x = xorshift(state[0])
    state[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@njit(cache=True, nogil=True)
def rand_below(state, n):
    """Uniform integer in [0, n) for 0 < n < 2**32 (multiply-shift, no division; bias < n/2**32)."""
    x = xorshift(state[0])
    state[0] = x
    return np.int64(below(x, n))


@njit(cache=True, nogil=True)
def rand_unit(state):
    """Uniform float in [0, 1)."""
    return (next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
