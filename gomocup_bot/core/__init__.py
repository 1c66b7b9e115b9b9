"""The engine core: numba kernels for the board, the rules, threat patterns, VCF and playouts.

Everything hot is an `@njit(cache=True, nogil=True)` function over a `Board` (a namedtuple of flat
numpy arrays, see `board.py`), so the search can call it from its own njit code. Importing this
package itself is cheap; the submodules import numba. The API is described in `docs/core.md`.
"""
